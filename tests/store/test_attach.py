"""ReleaseSession.attach: a tab's budgets moved into a workspace made lazily (issue 31, the app's first data load)."""
from __future__ import annotations

import pytest

from dpcore import privacy as P
from dpcore.errors import DPValueError


def _release(s: P.ReleaseSession, fp: str, eps: float, kind: str = P.USER) -> None:
    req = P.ReleaseRequest(key=(fp, "mean", eps), label=f"mean, ε = {eps}", kind=kind,
                           randomness=P.randomness_for(kind, seed=0),
                           bounds=P.check_bounds({"x": "declared"}) if kind == P.USER else None,
                           dataset=fp if kind == P.USER else None, cost=P.PrivacyCost.pure(eps))
    assert s.run(req, lambda rng: 0.5, cost_of=lambda r: P.PrivacyCost.pure(eps), submitted=True).status == "released"


def test_attach_moves_spending_and_demo_releases_and_keeps_the_cache(store):
    s = P.ReleaseSession()
    fp = "ab" * 32
    s.open_dataset(fp, n=500, name="people.csv")
    _release(s, fp, 1.0)
    _release(s, "builtin", 0.5, kind=P.BUILTIN)
    cached = len(s)
    ws, _ = store.create_workspace()
    s.attach(ws)
    assert s.workspace is ws and len(s) == cached and len(s.ledger) == 2
    acct = ws.account(fp)
    assert acct is not None and acct.spent() == (1.0, 0.0) and acct.name == "people.csv"
    assert [e.label for e in ws.demo_entries()] == ["mean, ε = 0.5"]
    _release(s, fp, 2.0)                                  # spends from the workspace now
    assert ws.account(fp).spent() == (3.0, 0.0)
    with pytest.raises(DPValueError, match="already has a workspace"):
        s.attach(ws)
