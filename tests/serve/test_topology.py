"""The local deployment topology (scripts/serve.py): two app replicas behind the real HAProxy from Debian.

A smoke test of what the proxy must guarantee: session affinity (a browser's requests all reach one replica), file
uploads and a release through the proxy (the upload is a separate HTTP request that must reach the replica holding
the websocket), and failover (a killed replica is taken out by the health check and its browsers are sent to the
other one). Needs Debian's ``haproxy``: skipped locally without it, required in CI (``REQUIRE_PROXY=1``).
"""
from __future__ import annotations

import os
import shutil
import sys
import time
from pathlib import Path

import pytest

from tests.serve.conftest import run_async
import requests

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "scripts"))
sys.path.insert(0, str(ROOT / "benchmarks"))

pytestmark = [pytest.mark.serve, pytest.mark.xdist_group("serve")]

if shutil.which("haproxy") is None:
    if os.environ.get("REQUIRE_PROXY") == "1":
        raise RuntimeError("REQUIRE_PROXY=1 but haproxy is not installed (apt-get install haproxy)")
    pytest.skip("haproxy is not installed", allow_module_level=True)


@pytest.fixture(scope="module")
def topology():
    import serve

    topo = serve.Topology(2)
    topo.start()
    yield topo
    topo.stop()


def test_a_browser_stays_on_its_replica_and_new_browsers_are_spread(topology):
    import serve

    first = {requests.get(topology.url + "/_stcore/health", timeout=10).cookies.get(serve.AFFINITY_COOKIE)
             for _ in range(4)}
    assert first == {"app1", "app2"}                      # round robin for new browsers
    s = requests.Session()
    home = s.get(topology.url + "/", timeout=10).headers["X-DPX-Replica"]
    assert {s.get(topology.url + "/_stcore/health", timeout=10).headers["X-DPX-Replica"] for _ in range(8)} == {home}


def test_uploads_and_releases_go_through_the_proxy(topology):
    import load

    sessions = run_async(load.run_sessions(topology.url, None, 4, 90.0))
    assert [p for s in sessions for p in s.problems] == [], topology.log_tail()
    assert all(len(s.latencies) == load.STEPS for s in sessions)
    assert {s.cookies["DPX_REPLICA"] for s in sessions} == {"app1", "app2"}


def test_a_dead_replica_is_taken_out_and_its_browsers_move(topology):
    s = requests.Session()
    home = s.get(topology.url + "/", timeout=10).headers["X-DPX-Replica"]
    topology.kill(home)
    try:
        deadline, moved = time.monotonic() + 10, None
        while time.monotonic() < deadline:
            r = s.get(topology.url + "/_stcore/health", timeout=10)
            if r.status_code == 200 and r.headers.get("X-DPX-Replica") != home:
                moved = r.headers["X-DPX-Replica"]
                break
            time.sleep(0.2)
        assert moved is not None, "the browser was not sent to a live replica within 10 s"
        assert s.cookies.get("DPX_REPLICA") == moved     # the proxy re-pinned it
    finally:
        topology.restart(home)


def test_issue35_a_tab_moved_off_a_dead_replica_says_it_reconnected_and_finds_its_workspace(topology):
    """A tab (the browser's protocol, its cookies: the proxy's affinity cookie and the app's workspace cookie) uploads,
    releases once, then its replica is killed. Its websocket reconnects through the proxy within 10 s to the other
    replica, where the page says first that it reconnected and that the workspace and budgets were restored from the
    database (its dataset and release counted); after Continue, the sidebar's ledger has the release."""
    import classroom_ws as W
    import load

    async def warm(s: load.Session) -> None:
        await s.connect()
        await s.rerun("Home")
        await s.rerun("KNG", page="kng")
        await s.close()

    for name in topology.procs:                            # each replica warm (its modules imported), as in service
        run_async(warm(load.Session(topology.url, load.xsrf_cookie(topology.url), 60.0, {"DPX_REPLICA": name})))
    xsrf, extra = load.session_cookies(topology.url)
    tab = W.Tab(topology.url, xsrf, 60.0, extra)
    run_async(load.scenario(tab))                          # Home → Data → upload → bounds → KNG → Release
    assert not tab.problems, (tab.problems, topology.log_tail())
    assert "dpx_ws" in tab.cookies and tab.query.startswith("session="), (tab.cookies.keys(), tab.query)
    home = tab.replica
    assert home in topology.procs
    topology.kill(home)
    try:
        async def reconnect() -> float:
            t0 = time.monotonic()
            while True:                                    # as the browser does: reconnect, then rerun the page
                try:
                    await tab.connect()
                    await tab.rerun("reconnect")
                    return time.monotonic() - t0
                except (OSError, load.StepError, load.websockets.WebSocketException):
                    if time.monotonic() - t0 > 10:
                        raise
                    await W.asyncio.sleep(0.25)

        async def session() -> tuple[float, str, list[str], list[str]]:
            took = await reconnect()
            notice, replica = list(tab.texts), tab.replica
            tab.set(tab.widget("dp_restart_ack"), trigger_value=True)
            await tab.rerun("continue")
            await tab.close()
            return took, replica, notice, list(tab.texts)

        took, moved, notice, after = run_async(session())
        assert took <= 10 and moved != home and moved in topology.procs, (took, moved, home)
        said = " ".join(notice)
        assert "Reconnected to the server; your workspace and budgets were restored from the database." in said, said
        assert "budgets of 1 dataset and 1 release" in said, said
        assert any("1 release counted as DP" in t for t in after), after
        assert not tab.problems, tab.problems
    finally:
        topology.restart(home)
