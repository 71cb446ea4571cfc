"""What the database costs on the release path (prints; never a pass/fail test).

One click = :meth:`dpcore.privacy.ReleaseSession.run` of a new release on a user's dataset (a trivial compute,
so only the bookkeeping is timed): without a store (budgets in the tab's memory) and with one (the budget
transaction: :meth:`dpcore.store.Workspace.check_and_spend` before computing — one transaction that locks the
account and inserts the spending — then :meth:`~dpcore.store.Workspace.record` of the released value), on
SQLite (WAL, synchronous=FULL: every commit reaches the disk) and on PostgreSQL (a temporary server started
here with its default, durable settings, or ``--postgres URL``; and the same server with
``synchronous_commit = off``, to separate the disk's flush from the rest). Also the two store calls alone. Target: the
budget transaction adds ≤ 5 ms per click. Identity (keyed row hashes of a table, once per load) is timed too.

Run: ``python benchmarks/store.py [--clicks 300] [--postgres postgresql+psycopg://…]``.
"""
from __future__ import annotations

import argparse
import os
import shutil
import socket
import statistics
import subprocess
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pandas as pd

from dpcore.privacy import USER, Budget, PrivacyCost, ReleaseRequest, ReleaseSession, check_bounds, randomness_for
from dpcore.store import open_store

SECRET = "benchmark-secret-" + "z" * 40


class _Result:
    cost = PrivacyCost.pure(0.001)
    value = 1.0


def _click(session: ReleaseSession, dataset: str, i: int) -> None:
    req = ReleaseRequest(key=(dataset, "bench", i), label=f"bench release {i}", kind=USER,
                         randomness=randomness_for(USER), bounds=check_bounds({"x": "declared"}), dataset=dataset,
                         cost=PrivacyCost.pure(0.001))
    out = session.run(req, lambda rng: _Result(), submitted=True)
    assert out.status == "released"


def per_click_ms(fn: Callable[[int], None], clicks: int) -> tuple[float, float]:
    """Median and 95th percentile milliseconds of ``clicks`` calls (after 10 warm-up calls)."""
    for i in range(10):
        fn(-1 - i)
    times = []
    for i in range(clicks):
        t = time.perf_counter()
        fn(i)
        times.append((time.perf_counter() - t) * 1000)
    times.sort()
    return statistics.median(times), times[int(0.95 * (len(times) - 1))]


def bench_backend(label: str, url: str, clicks: int, frame: pd.DataFrame) -> None:
    store = open_store(url, secret=SECRET)
    ws, _ = store.create_workspace()
    t = time.perf_counter()
    ident = store.identify(frame)
    t_ident = (time.perf_counter() - t) * 1000
    acct, _ = ws.open_account(ident, "bench.csv", Budget(1e6, 0.0, n=len(frame)))
    session = ReleaseSession(workspace=ws)
    med, p95 = per_click_ms(lambda i: _click(session, acct.fingerprint, i), clicks)
    print(f"{label:<14} release click with the budget transaction: median {med:6.2f} ms, p95 {p95:6.2f} ms")

    def raw(i: int) -> None:
        ws.record(ws.check_and_spend(acct.fingerprint, PrivacyCost.pure(0.001), label="raw"), 1.0)

    med, p95 = per_click_ms(raw, clicks)
    print(f"{label:<14} check_and_spend + record alone:           median {med:6.2f} ms, p95 {p95:6.2f} ms")
    med, p95 = per_click_ms(lambda i: ws.account(acct.fingerprint), clicks)
    print(f"{label:<14} reading the account (+{clicks + 10} entries):       median {med:6.2f} ms, p95 {p95:6.2f} ms")
    session.account(acct.fingerprint)
    med, p95 = per_click_ms(lambda i: session.account(acct.fingerprint), clicks)
    print(f"{label:<14} a tab's read, nothing changed (revision):  median {med:6.2f} ms, p95 {p95:6.2f} ms")
    print(f"{label:<14} identity of a {len(frame):,}-row table (once per load): {t_ident:.0f} ms")
    ws.delete()
    store.close()


def _postgres(root: Path) -> tuple[str, Callable[[], None]] | None:
    bins = sorted(Path("/usr/lib/postgresql").glob("*/bin"), reverse=True)
    if not bins:
        return None
    initdb, pg_ctl = str(bins[0] / "initdb"), str(bins[0] / "pg_ctl")
    run_as = ["runuser", "-u", "postgres", "--"] if os.geteuid() == 0 else []
    if os.geteuid() == 0:
        shutil.chown(root, "postgres")
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    data = root / "data"
    subprocess.run(run_as + [initdb, "-D", str(data), "-U", "postgres", "--auth=trust"], check=True,
                   capture_output=True)
    subprocess.run(run_as + [pg_ctl, "-D", str(data), "-o", f"-c listen_addresses=127.0.0.1 -c port={port} "
                             f"-c unix_socket_directories={root}", "-l", str(root / "log"), "-w", "start"],
                   check=True, capture_output=True)
    stop = lambda: subprocess.run(run_as + [pg_ctl, "-D", str(data), "-m", "fast", "stop"], capture_output=True)
    return f"postgresql+psycopg://postgres@127.0.0.1:{port}/postgres", stop


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--clicks", type=int, default=300)
    ap.add_argument("--rows", type=int, default=10_000)
    ap.add_argument("--postgres", default=None, help="a PostgreSQL URL (default: start a temporary server)")
    args = ap.parse_args()
    rng = np.random.default_rng(0)
    frame = pd.DataFrame({"x": rng.normal(size=args.rows).round(3), "y": rng.integers(0, 100, args.rows)})

    memory = ReleaseSession()
    memory.open_dataset("bench", n=args.rows, budget=Budget(1e6, 0.0, n=args.rows))
    med, p95 = per_click_ms(lambda i: _click(memory, "bench", i), args.clicks)
    print(f"{'memory':<14} release click without a database:          median {med:6.2f} ms, p95 {p95:6.2f} ms")
    for mode in ("FULL", "NORMAL"):     # DPX_SQLITE_SYNCHRONOUS: FULL (default) survives a power loss
        os.environ["DPX_SQLITE_SYNCHRONOUS"] = mode
        with tempfile.TemporaryDirectory() as tmp:
            bench_backend(f"SQLite {mode}", f"sqlite:///{tmp}/dpx.sqlite3", args.clicks, frame)
    os.environ.pop("DPX_SQLITE_SYNCHRONOUS")
    if args.postgres:
        bench_backend("PostgreSQL", args.postgres, args.clicks, frame)
        return
    root = Path(tempfile.mkdtemp(prefix="dpx-bench-pg-"))
    try:
        started = _postgres(root)
        if started is None:
            print("PostgreSQL: not installed (apt-get install postgresql), skipped")
            return
        url, stop = started
        try:
            bench_backend("PostgreSQL", url, args.clicks, frame)
            # the same without waiting for the disk at commit (what a server with synchronous_commit = off does)
            bench_backend("PG no-fsync", url + "?options=-csynchronous_commit%3Doff", args.clicks, frame)
        finally:
            stop()
    finally:
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
