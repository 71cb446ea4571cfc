"""Several app replicas behind HAProxy on this machine: the deployment topology, started from Debian's packages.

What ``compose.yaml`` describes with containers, this script starts with local processes (CI and this machine have
no Docker daemon): N ``streamlit run app.py`` replicas on 127.0.0.1, one database shared by all of them (SQLite in
WAL mode under a data directory, or a local PostgreSQL started from Debian's ``postgresql`` package in a temporary
directory), and Debian's ``haproxy`` in front. The tests and ``benchmarks/load.py --replicas N`` use it.

Why HAProxy (Debian's ``haproxy``): Streamlit keeps a tab's session in the memory of the replica that holds its
websocket, and a file upload is a separate HTTP request that must reach that same replica (else it is answered
"400 session invalid"). HAProxy inserts a cookie naming the replica on the first response (``cookie … insert``), so
every later request of that browser — websocket, uploads, downloads — goes to the same replica; it proxies
websockets natively; its active health check (``GET /_stcore/health`` every second) takes a dead replica out within
≈ 2 s and ``option redispatch`` sends that replica's browsers to a live one, where the page finds the workspace in
the shared database. Caddy (also packaged) offers cookie affinity too, but HAProxy's health checks, redispatch and
per-server response header (``X-DPX-Replica``, used by the tests to see where a request went) are all built in.

All replicas share ``server.cookieSecret`` (so the XSRF cookie one replica set is valid on another after failover)
and ``DPX_SERVER_SECRET`` (so every replica computes the same keyed identities).

Usage::

    python scripts/serve.py --replicas 2 --port 8500                  # SQLite (WAL) under .dpx-data/
    python scripts/serve.py --replicas 2 --database postgres          # a local PostgreSQL in a temp dir
    python scripts/serve.py --write-compose-config                    # regenerate deploy/haproxy.cfg

Loopback only: every process listens on 127.0.0.1.
"""
from __future__ import annotations

import argparse
import os
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PG_BIN = Path("/usr/lib/postgresql/15/bin")
#: The cookie HAProxy inserts to keep a browser on its replica.
AFFINITY_COOKIE = "DPX_REPLICA"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _wait_http(url: str, limit: float, proc: subprocess.Popen | None = None) -> None:
    deadline = time.monotonic() + limit
    while time.monotonic() < deadline:
        if proc is not None and proc.poll() is not None:
            raise RuntimeError(f"{proc.args[0]} exited with code {proc.returncode} before {url} answered")
        try:
            with urllib.request.urlopen(url, timeout=2) as r:
                if r.status == 200:
                    return
        except OSError:
            time.sleep(0.2)
    raise RuntimeError(f"{url} did not answer 200 within {limit:.0f} s")


class LocalPostgres:
    """A throw-away PostgreSQL server from Debian's package: ``initdb`` + ``pg_ctl`` in a temporary directory, as
    the unprivileged ``postgres`` user when run as root, listening on 127.0.0.1 only."""

    def __init__(self, root: Path):
        self.root, self.port = Path(root), free_port()
        self.data = self.root / "pgdata"
        self._as: list[str] = ["runuser", "-u", "postgres", "--"] if os.geteuid() == 0 else []

    @staticmethod
    def available() -> bool:
        return (PG_BIN / "initdb").exists() and (os.geteuid() != 0 or shutil.which("runuser") is not None)

    def start(self) -> str:
        self.root.mkdir(parents=True, exist_ok=True)
        if self._as:
            shutil.chown(self.root, "postgres")
            parent = self.root.parent                      # (a mkdtemp folder, 0700: let the postgres user pass)
            parent.chmod(parent.stat().st_mode | 0o011)
        subprocess.run(self._as + [str(PG_BIN / "initdb"), "-D", str(self.data), "-U", "dpx", "--auth=trust",
                                   "-E", "UTF8", "--no-sync"], check=True, capture_output=True)
        opts = f"-c listen_addresses=127.0.0.1 -p {self.port} -k {self.root} -c fsync=off -c max_connections=200"
        subprocess.run(self._as + [str(PG_BIN / "pg_ctl"), "-D", str(self.data), "-o", opts, "-w", "-t", "60",
                                   "-l", str(self.root / "pg.log"), "start"], check=True, capture_output=True)
        subprocess.run(self._as + [str(PG_BIN / "createdb"), "-h", "127.0.0.1", "-p", str(self.port), "-U", "dpx",
                                   "dpx"], check=True, capture_output=True)
        return f"postgresql+psycopg://dpx@127.0.0.1:{self.port}/dpx"

    def stop(self) -> None:
        subprocess.run(self._as + [str(PG_BIN / "pg_ctl"), "-D", str(self.data), "-m", "immediate", "stop"],
                       capture_output=True)


def haproxy_config(bind: str, replicas: dict[str, str], *, docker_dns: bool = False) -> str:
    """The proxy's configuration: cookie affinity, websockets, health checks, redispatch on failure.

    ``bind`` is ``host:port``; ``replicas`` maps a server name to its ``host:port``. With ``docker_dns`` the
    replicas are found by Docker's resolver (``compose.yaml``: a replica that is not up yet is not an error).
    ``deploy/haproxy.cfg`` is this function's output for the compose file (a test keeps them equal).
    """
    extra = "    default-server init-addr last,libc,none resolvers docker\n" if docker_dns else ""
    dns = "resolvers docker\n    nameserver dns 127.0.0.11:53\n    hold valid 5s\n\n" if docker_dns else ""
    servers = "\n".join(f"    server {name} {addr} check inter 1s fall 2 rise 2 cookie {name}"
                        for name, addr in replicas.items())
    return f"""# HAProxy in front of the app replicas (generated by scripts/serve.py's haproxy_config; see its docstring)
global
    maxconn 4096

{dns}defaults
    mode http
    timeout connect 5s
    timeout client 1h
    timeout server 1h
    timeout tunnel 1h
    option redispatch
    retries 2

frontend web
    bind {bind}
    default_backend apps

backend apps
    balance roundrobin
    cookie {AFFINITY_COOKIE} insert indirect nocache httponly
    option httpchk GET /_stcore/health
    http-check expect status 200
    http-response set-header X-DPX-Replica %s
{extra}{servers}
"""


def compose_haproxy_config(replicas: int = 2) -> str:
    """``deploy/haproxy.cfg``: the compose file's proxy in front of services ``app1`` … ``appN`` on port 8501."""
    return haproxy_config("*:8080", {f"app{i + 1}": f"app{i + 1}:8501" for i in range(replicas)}, docker_dns=True)


class Topology:
    """N replicas + HAProxy (+ optionally a local PostgreSQL), started and stopped together.

    >>> Topology(replicas=0)
    Traceback (most recent call last):
    ...
    ValueError: replicas = 0: give 1 to 8 app replicas.
    """

    def __init__(self, replicas: int = 2, *, port: int | None = None, database: str = "sqlite",
                 data_dir: Path | None = None, extra_env: dict[str, str] | None = None):
        if not 1 <= replicas <= 8:
            raise ValueError(f"replicas = {replicas}: give 1 to 8 app replicas.")
        self.n, self.port, self.database = replicas, port or free_port(), database
        self.tmp = Path(tempfile.mkdtemp(prefix="dpx-serve-"))
        self.data_dir = Path(data_dir) if data_dir else self.tmp / "data"
        self.extra_env = dict(extra_env or {})
        self.replica_ports = {f"app{i + 1}": free_port() for i in range(replicas)}
        self.procs: dict[str, subprocess.Popen] = {}
        self._logs: list = []
        self.proxy: subprocess.Popen | None = None
        self.pg: LocalPostgres | None = None
        self.env: dict[str, str] = {}
        self.cookie_secret = secrets.token_hex(16)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def _replica(self, name: str) -> subprocess.Popen:
        p = self.replica_ports[name]
        return subprocess.Popen(
            [sys.executable, "-m", "streamlit", "run", "app.py", "--server.port", str(p), "--server.address",
             "127.0.0.1", "--server.headless", "true", "--browser.gatherUsageStats", "false",
             "--server.fileWatcherType", "none", "--server.disconnectedSessionTTL", "2"],
            cwd=ROOT, env=self.env, stdout=subprocess.DEVNULL, stderr=self._log(f"{name}.log"))

    def _log(self, name: str):
        f = open(self.tmp / name, "ab")
        self._logs.append(f)
        return f

    def log_tail(self, chars: int = 3000) -> str:
        """The end of every process's log (for a failing test's message)."""
        return "\n".join(f"--- {p.name}\n{p.read_text(errors='replace')[-chars:]}" for p in sorted(self.tmp.glob("*.log")))

    def start(self) -> Topology:
        if shutil.which("haproxy") is None:
            raise RuntimeError("haproxy is not installed: apt-get install haproxy")
        self.data_dir.mkdir(parents=True, exist_ok=True)
        # a replica is a server, not a test: pytest's variables make Streamlit treat it as one under test
        base = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST")}
        env = dict(base, DPX_DATA_DIR=str(self.data_dir), STREAMLIT_SERVER_COOKIE_SECRET=self.cookie_secret,
                   DPX_SERVER_SECRET=os.environ.get("DPX_SERVER_SECRET", secrets.token_hex(32)), **self.extra_env)
        if self.database == "postgres":
            self.pg = LocalPostgres(self.tmp / "pg")
            env["DPX_DATABASE_URL"] = self.pg.start()
        elif self.database != "sqlite":
            env["DPX_DATABASE_URL"] = self.database
        self.env = env
        for name in self.replica_ports:
            self.procs[name] = self._replica(name)
        for name, p in self.replica_ports.items():
            _wait_http(f"http://127.0.0.1:{p}/_stcore/health", 120, self.procs[name])
        cfg = self.tmp / "haproxy.cfg"
        cfg.write_text(haproxy_config(f"127.0.0.1:{self.port}",
                                      {n: f"127.0.0.1:{p}" for n, p in self.replica_ports.items()}), encoding="utf-8")
        self.proxy = subprocess.Popen(["haproxy", "-f", str(cfg), "-db"], stdout=subprocess.DEVNULL,
                                      stderr=self._log("haproxy.log"))
        _wait_http(f"{self.url}/_stcore/health", 30, self.proxy)
        return self

    def kill(self, name: str) -> None:
        """Kill one replica at once (SIGKILL: no goodbye to its tabs), as a crash would."""
        proc = self.procs[name]
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=10)

    def restart(self, name: str) -> None:
        if self.procs[name].poll() is None:
            self.kill(name)
        self.procs[name] = self._replica(name)
        _wait_http(f"http://127.0.0.1:{self.replica_ports[name]}/_stcore/health", 120, self.procs[name])

    def stop(self) -> None:
        for proc in [*self.procs.values(), self.proxy]:
            if proc is not None and proc.poll() is None:
                proc.terminate()
        for proc in [*self.procs.values(), self.proxy]:
            if proc is not None:
                try:
                    proc.wait(timeout=15)
                except subprocess.TimeoutExpired:
                    proc.kill()
        if self.pg is not None:
            self.pg.stop()
        for f in self._logs:
            f.close()
        shutil.rmtree(self.tmp, ignore_errors=True)

    def __enter__(self) -> Topology:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--replicas", type=int, default=2)
    ap.add_argument("--port", type=int, default=8500, help="the proxy's port on 127.0.0.1")
    ap.add_argument("--database", default="sqlite",
                    help="sqlite (a WAL file under --data-dir), postgres (a local server in a temp dir) or a URL")
    ap.add_argument("--data-dir", type=Path, default=ROOT / ".dpx-data", help="where the SQLite database lives")
    ap.add_argument("--write-compose-config", action="store_true", help="write deploy/haproxy.cfg and exit")
    a = ap.parse_args(argv)
    if a.write_compose_config:
        (ROOT / "deploy").mkdir(exist_ok=True)
        (ROOT / "deploy" / "haproxy.cfg").write_text(compose_haproxy_config(), encoding="utf-8")
        return 0
    topo = Topology(a.replicas, port=a.port, database=a.database, data_dir=a.data_dir)
    try:
        topo.start()
        print(f"serving {a.replicas} replicas ({', '.join(f'{n} :{p}' for n, p in topo.replica_ports.items())}) "
              f"behind HAProxy at {topo.url} on {a.database}; Ctrl-C stops all", flush=True)
        while all(p.poll() is None for p in [*topo.procs.values(), topo.proxy] if p is not None):
            time.sleep(1)
        print("a process exited; stopping", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 0
    finally:
        topo.stop()


if __name__ == "__main__":
    sys.exit(main())
