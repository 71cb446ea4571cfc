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
