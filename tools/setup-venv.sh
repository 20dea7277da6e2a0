#!/usr/bin/env bash
# Create or refresh the project virtualenv in <repo>/.venv.
#
#   tools/setup-venv.sh          runtime requirements, the clients
#                                (client-requirements.txt: openstack CLI,
#                                openstacksdk) + the project (editable)
#   tools/setup-venv.sh --test   ... plus test-requirements.txt
#
# Idempotent: a stamp file in .venv records a hash of the requirement and
# packaging files; when nothing changed, nothing is reinstalled.
# Set PYTHON to choose the interpreter (default: the first python3 >= 3.11).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
VENV="$ROOT/.venv"
STAMP="$VENV/.stacklite-setup-stamp"
PROFILE=base

die() { echo "setup-venv: ERROR: $*" >&2; exit 1; }
log() { echo "setup-venv: $*"; }

for arg in "$@"; do
    case "$arg" in
        --test) PROFILE=test ;;
        -h|--help) sed -n '2,12p' "$0"; exit 0 ;;
        *) die "unknown argument: $arg (usage: $0 [--test])" ;;
    esac
done

cd "$ROOT"

python_ok() {
    "$1" -c 'import sys; sys.exit(0 if sys.version_info >= (3, 11) else 1)' \
        >/dev/null 2>&1
}

find_python() {
    if [[ -n "${PYTHON:-}" ]]; then
        python_ok "$PYTHON" || die "PYTHON=$PYTHON is not a Python >= 3.11"
        echo "$PYTHON"; return
    fi
    local candidate
    for candidate in python3 python3.13 python3.12 python3.11; do
        if command -v "$candidate" >/dev/null 2>&1 && python_ok "$candidate"
        then
            echo "$candidate"; return
        fi
    done
    die "no Python >= 3.11 found (tried python3, python3.13..3.11)"
}

ensure_venv() {
    if [[ -x "$VENV/bin/python" ]] && python_ok "$VENV/bin/python" \
        && "$VENV/bin/python" -m pip --version >/dev/null 2>&1; then
        return
    fi
    local python
    python="$(find_python)"
    [[ -e "$VENV" ]] && { log "removing broken $VENV"; rm -rf "$VENV"; }
    log "creating $VENV with $python ($("$python" --version 2>&1))"
    "$python" -m venv "$VENV" || die "'$python -m venv' failed;" \
        "on Debian install the python3-venv package"
}

input_hash() {
    local files=(requirements.txt client-requirements.txt constraints.txt
                 setup.cfg pyproject.toml)
    [[ "$PROFILE" == test ]] && files+=(test-requirements.txt)
    local f
    for f in "${files[@]}"; do
        [[ -f "$f" ]] || die "missing $ROOT/$f"
    done
    {
        "$VENV/bin/python" --version 2>&1
        sha256sum "${files[@]}"
    } | sha256sum | cut -d' ' -f1
}

# pbr derives the version from git; a checkout without commits (or a
# plain copy of the tree) needs an explicit one.
ensure_pbr_version() {
    if [[ -z "${PBR_VERSION:-}" ]] \
        && ! git -C "$ROOT" rev-parse --verify -q HEAD >/dev/null 2>&1; then
        export PBR_VERSION=0.0.1.dev0
        log "no git history: using PBR_VERSION=$PBR_VERSION"
    fi
}

install() {
    local pip=("$VENV/bin/python" -m pip --disable-pip-version-check)
    log "upgrading pip"
    "${pip[@]}" install -q --progress-bar off --upgrade pip
    local reqs=(-r requirements.txt -r client-requirements.txt)
    [[ "$PROFILE" == test ]] && reqs+=(-r test-requirements.txt)
    # [emulate]: the Redfish emulator of stacklite-aio --baremetal-emulate.
    log "installing ${reqs[*]} -e .[emulate] (constraints.txt)"
    "${pip[@]}" install -q --progress-bar off -c constraints.txt "${reqs[@]}" \
        -e ".[emulate]"
}

ensure_venv
HASH="$(input_hash)"
if [[ -f "$STAMP" ]] && grep -qx "$PROFILE $HASH" "$STAMP"; then
    log "$VENV is up to date ($PROFILE)"
    exit 0
fi
ensure_pbr_version
rm -f "$STAMP"
install
if [[ "$PROFILE" == test ]]; then
    # A test install also satisfies a plain one.
    { echo "test $HASH"; echo "base $(PROFILE=base input_hash)"; } >"$STAMP"
else
    echo "base $HASH" >"$STAMP"
fi
log "done: $VENV ($PROFILE)"
