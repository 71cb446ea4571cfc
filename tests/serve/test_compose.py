"""compose.yaml and deploy/haproxy.cfg: the container deployment describes the same topology scripts/serve.py starts.

No Docker daemon here or in CI, so `docker compose config` cannot run; instead: the file parses, every service the
topology needs is there with its health check, secrets come only from the environment, the replicas share the
database, the server secret and the cookie secret, and the proxy's configuration is the generator's output and is
accepted by the real HAProxy (`haproxy -c`)."""
from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "scripts"))

COMPOSE = yaml.safe_load((ROOT / "compose.yaml").read_text(encoding="utf-8"))


def test_services_health_checks_and_shared_state():
    s = COMPOSE["services"]
    assert set(s) == {"proxy", "app1", "app2", "db"}
    assert s["app1"] == s["app2"]                              # identical replicas (one anchor)
    env = s["app1"]["environment"]
    assert env["DPX_DATABASE_URL"].startswith("postgresql+psycopg://dpx:${POSTGRES_PASSWORD") and "@db:5432/" in env[
        "DPX_DATABASE_URL"]
    assert env["DPX_SERVER_SECRET"].startswith("${DPX_SERVER_SECRET:?")
    assert env["STREAMLIT_SERVER_COOKIE_SECRET"].startswith("${DPX_COOKIE_SECRET:?")
    assert "_stcore/health" in " ".join(s["app1"]["healthcheck"]["test"])
    assert "pg_isready" in " ".join(s["db"]["healthcheck"]["test"])
    assert s["app1"]["depends_on"]["db"]["condition"] == "service_healthy"
    assert "./deploy/haproxy.cfg:/usr/local/etc/haproxy/haproxy.cfg:ro" in s["proxy"]["volumes"]


def test_no_secret_is_written_in_the_file():
    text = (ROOT / "compose.yaml").read_text(encoding="utf-8")
    for line in text.splitlines():
        m = re.search(r"(PASSWORD|SECRET)[A-Z_]*:\s*(\S+)", line)
        if m and not line.lstrip().startswith("#"):
            assert m.group(2).startswith("${") or "${" in line, line


def test_proxy_config_is_the_generators_and_haproxy_accepts_it():
    import serve

    assert (ROOT / "deploy" / "haproxy.cfg").read_text(encoding="utf-8") == serve.compose_haproxy_config(2)
    if shutil.which("haproxy") is None:
        pytest.skip("haproxy is not installed")
    run = subprocess.run(["haproxy", "-c", "-f", str(ROOT / "deploy" / "haproxy.cfg")], capture_output=True, text=True)
    assert run.returncode == 0, run.stdout + run.stderr
    assert "cookie DPX_REPLICA insert" in serve.compose_haproxy_config(2)
