# DP Mechanism Explorer — educational/research tool (floating-point samplers are not
# hardened for production releases).
#
#   docker build -t dp-explorer .                       # anywhere: python:3.11-slim, packages from PyPI
#   scripts/docker_build_local.sh                       # offline here: a Debian bookworm base + local wheels
#
# BASE: any image with Python 3.11 (`python3`, its venv module) and `useradd`.
# Wheels: a `wheelhouse/` folder in the build context, if there is one, is searched first; with
# --build-arg PIP_NO_INDEX=1 it is the only source (no network during the build).
ARG BASE=python:3.11-slim

FROM ${BASE} AS build
ARG PIP_NO_INDEX=
ENV PIP_DISABLE_PIP_VERSION_CHECK=1 PIP_NO_CACHE_DIR=1 PIP_NO_INDEX=${PIP_NO_INDEX}
# (the wildcard copies wheelhouse/'s wheels if the folder exists and nothing otherwise). The requirements' `-e .`
# (the package itself, for exported scripts run from any folder) is left out: the image runs app.py from /app.
COPY requirements.txt wheelhouse* /tmp/build/
RUN python3 -m venv /opt/venv \
 && grep -v '^-e \.$' /tmp/build/requirements.txt > /tmp/build/dependencies.txt \
 && /opt/venv/bin/pip install --find-links /tmp/build -r /tmp/build/dependencies.txt \
 && (/opt/venv/bin/pip uninstall -y -q pip setuptools wheel || true)

FROM ${BASE}
ENV PATH=/opt/venv/bin:${PATH} \
    PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1
# No installers or build tools in the runtime image (the base's own pip goes too); an unprivileged
# user that owns nothing but its home.
RUN (python3 -m pip uninstall -y -q pip setuptools wheel 2>/dev/null || true) \
 && useradd --create-home --uid 10001 --shell /usr/sbin/nologin appuser
COPY --from=build /opt/venv /opt/venv
WORKDIR /app
# Only what the app runs: the entry point, the pages, the app layer (ui/), the package and the server configuration.
COPY --chown=root:root app.py ./
COPY --chown=root:root .streamlit/config.toml ./.streamlit/config.toml
COPY --chown=root:root pages ./pages
COPY --chown=root:root ui ./ui
COPY --chown=root:root dpcore ./dpcore

# The database of budgets, spending, ledgers and workspaces (SQLite, WAL) and its server secret: a volume owned by
# the app's user, so that a new container finds them. Several servers: DPX_DATABASE_URL=postgresql+psycopg://… and
# the same DPX_SERVER_SECRET on each.
ENV DPX_DATA_DIR=/data
RUN mkdir -m 0700 /data && chown appuser /data
VOLUME ["/data"]

USER appuser
EXPOSE 8501

# curl is not in the image: probe Streamlit's health endpoint with the stdlib.
HEALTHCHECK --interval=30s --timeout=5s --start-period=20s --retries=3 \
    CMD ["python", "-c", "import sys, urllib.request; sys.exit(0 if urllib.request.urlopen('http://localhost:8501/_stcore/health', timeout=4).status == 200 else 1)"]

CMD ["streamlit", "run", "app.py", "--server.address=0.0.0.0", "--server.port=8501"]
