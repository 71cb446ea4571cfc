#!/usr/bin/env bash
# Build the Docker image on a machine with no image registry, then probe it.
#
#   scripts/docker_build_local.sh            # base (once), wheels, image dp-explorer:local, probe
#   PROBE_ONLY=1 scripts/docker_build_local.sh
#
# 1. Base: Debian bookworm with python3 (3.11), its venv module and passwd, made by mmdebstrap from
#    Debian's mirror and loaded with `docker import` as dp-explorer-base:bookworm-py311 (skipped if present).
# 2. Wheels: `pip wheel -r requirements.txt -w wheelhouse/` with this machine's pip (its index settings).
# 3. `docker build --build-arg BASE=<that base> --build-arg PIP_NO_INDEX=1`: the build uses no network.
#    The same Dockerfile with its default base (python:3.11-slim) builds anywhere a registry is reachable.
# 4. Probe: run the image on a free 127.0.0.1 port; it must answer /_stcore/health, run as a non-root
#    user, contain no compiler, installer or test tool, and serve every page of the navigation without an
#    error (benchmarks/load.py --every-page), plus two full sessions (upload, bounds, ε, release).
# The container is removed by its id at the end. Exit 0 only if every check passed.
set -euo pipefail
cd "$(dirname "$0")/.."

BASE_TAG=${BASE_TAG:-dp-explorer-base:bookworm-py311}
IMAGE=${IMAGE:-dp-explorer:local}
MIRROR=${MIRROR:-http://deb.debian.org/debian}
PYTHON=${PYTHON:-python3}
log() { printf '\n== %s ==\n' "$*"; }
fail() { echo "FAILED: $*" >&2; exit 1; }

docker info >/dev/null 2>&1 || fail "the docker daemon is not reachable ($(docker info 2>&1 | tail -1)); start it (e.g. dockerd &)"

if [ -z "${PROBE_ONLY:-}" ]; then
  if ! docker image inspect "$BASE_TAG" >/dev/null 2>&1; then
    log "base image $BASE_TAG: mmdebstrap bookworm from $MIRROR"
    command -v mmdebstrap >/dev/null || fail "mmdebstrap is missing (apt-get install mmdebstrap)"
    tmp=$(mktemp -d)
    mmdebstrap --variant=minbase --include=python3,python3-venv,passwd bookworm "$tmp/base.tar" "$MIRROR" \
      || fail "mmdebstrap could not build the base from $MIRROR"
    docker import --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
      "$tmp/base.tar" "$BASE_TAG"
    rm -rf "$tmp"
  fi
  log "wheels for requirements.txt -> wheelhouse/"
  "$PYTHON" -m pip wheel -q -r <(grep -v '^-e \.$' requirements.txt) -w wheelhouse   # (not the project itself)
  log "docker build -t $IMAGE (BASE=$BASE_TAG, no index)"
  DOCKER_BUILDKIT=0 docker build -q -t "$IMAGE" --build-arg BASE="$BASE_TAG" --build-arg PIP_NO_INDEX=1 .
fi

log "probe $IMAGE"
port=$("$PYTHON" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
cid=$(docker run -d -p "127.0.0.1:$port:8501" "$IMAGE")
trap 'docker rm -f "$cid" >/dev/null 2>&1 || true' EXIT
base="http://127.0.0.1:$port"
for _ in $(seq 1 120); do
  if "$PYTHON" -c "import urllib.request, sys; sys.exit(urllib.request.urlopen('$base/_stcore/health', timeout=2).status != 200)" 2>/dev/null; then
    break
  fi
  [ "$(docker inspect -f '{{.State.Running}}' "$cid")" = true ] || { docker logs "$cid" | tail -20; fail "the container exited"; }
  sleep 0.5
done
"$PYTHON" -c "import urllib.request; print('health:', urllib.request.urlopen('$base/_stcore/health', timeout=5).read().decode())"

uid=$(docker exec "$cid" id -u); user=$(docker exec "$cid" id -un)
[ "$uid" != 0 ] || fail "the container runs as root"
echo "runs as: $user (uid $uid)"

tools=$(docker exec "$cid" sh -c 'for t in gcc cc c++ make ld pip pip3 pytest ruff playwright chromium; do command -v "$t"; done' || true)
[ -z "$tools" ] || fail "build/test tools in the image: $tools"
mods=$(docker exec "$cid" python -c "import importlib.util as u; print(' '.join(m for m in ('pip', 'setuptools', 'wheel', 'pytest', 'hypothesis', 'playwright', 'ruff', 'xdist') if u.find_spec(m)))")
[ -z "$mods" ] || fail "build/test Python modules in the image: $mods"
echo "no compiler, installer or test tool (checked: gcc cc c++ make ld pip pytest ruff playwright chromium; Python: pip setuptools wheel pytest hypothesis playwright ruff xdist)"
docker exec "$cid" sh -c 'touch /app/x 2>/dev/null' && fail "the app user can write to /app" || echo "/app is read-only for the app user"

"$PYTHON" benchmarks/load.py --url "$base" --every-page
"$PYTHON" benchmarks/load.py --url "$base" --sessions 2 --check | grep -E "^(sessions|rerun|errors)"
echo "image size: $(docker image inspect -f '{{.Size}}' "$IMAGE" | awk '{printf "%.0f MB", $1 / 1e6}')"
log "all checks passed"
