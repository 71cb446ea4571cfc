"""ReleaseSession.hold_reads (issue 35, lighter reruns): a script run reads its workspace once, not once per panel —
and no other thread, and no write, ever sees that read stale."""
from __future__ import annotations

import concurrent.futures

import sqlalchemy as sa

from dpcore import privacy as P
from tests.store.test_attach import _release

FP = "cd" * 32


def _counting(store) -> list[int]:
    n = [0]
    sa.event.listen(store.engine, "before_cursor_execute", lambda *a, **k: n.__setitem__(0, n[0] + 1))
    return n


def _spent(s: P.ReleaseSession) -> float:
    return s.account(FP).spent()[0]


def test_issue35_a_held_run_asks_the_database_once_and_its_own_writes_show_at_once(store):
    ws, _ = store.create_workspace()
    tab = P.ReleaseSession(workspace=ws)
    tab.open_dataset(FP, n=500, name="people.csv")
    _release(tab, FP, 1.0)
    queries = _counting(store)
    for _ in range(3):                       # unheld: a revision query per read (a panel each)
        tab.accounts, tab.all_entries(), tab.account(FP)
    unheld = queries[0]
    assert unheld >= 9
    queries[0] = 0
    tab.hold_reads()
    held_start = queries[0]
    assert 1 <= held_start <= unheld / 9     # one revision query's worth (the full read only if it moved)
    for _ in range(3):
        tab.accounts, tab.all_entries(), tab.account(FP)
    assert queries[0] == held_start          # nothing more this run
    _release(tab, FP, 2.0)                   # a write drops the held read: the next read sees it
    assert _spent(tab) == 3.0


def test_issue35_another_tab_s_spending_is_seen_by_every_other_thread_and_the_next_run(store):
    ws, token = store.create_workspace()
    a = P.ReleaseSession(workspace=ws)
    a.open_dataset(FP, n=500, name="people.csv")
    b = P.ReleaseSession(workspace=store.open_workspace(token))
    a.hold_reads()
    assert _spent(a) == 0.0
    _release(b, FP, 1.5)                     # another tab (another process) spends
    assert _spent(a) == 0.0                  # this run keeps the read it started with (its charge is re-checked
    #                                          in the database's transaction, never against this read)
    with concurrent.futures.ThreadPoolExecutor(1) as pool:   # any other thread (the next script run) sees it
        assert pool.submit(_spent, a).result() == 1.5
    a.hold_reads()                           # the next run of this thread
    assert _spent(a) == 1.5
