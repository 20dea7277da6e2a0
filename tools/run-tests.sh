#!/usr/bin/env bash
# Run the whole test suite the way CI does:
#   0. the Debian packages it needs (tools/install-packages.sh: installs
#      them as root, otherwise says what to install, and the logins)
#   1. .venv with runtime + test requirements (tools/setup-venv.sh --test)
#   2. RabbitMQ, MariaDB and PostgreSQL up, and the tests' logins work
#      (tools/ensure-services.sh)
#   3. ruff check, ruff format --check and mypy (pyproject.toml), and the
#      documentation and the release notes build without a warning
#   4. pytest over unit, functional and integration tests (2 workers);
#      integration tests are never skipped, and "no tests collected" fails.
# Extra arguments are passed to pytest.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
STAGE=setup

finish() {
    local rc=$?
    if ((rc == 0)); then
        echo "run-tests: SUCCESS: ruff, mypy, docs, release notes and pytest passed"
    else
        echo "run-tests: FAILED at stage '$STAGE' (exit $rc)" >&2
    fi
}
trap finish EXIT

STAGE=packages
tools/install-packages.sh

STAGE=setup-venv
tools/setup-venv.sh --test

STAGE=ensure-services
tools/ensure-services.sh

STAGE=ruff
.venv/bin/ruff check ironic_lite lite_common neutron_lite nova_lite stacklite tools
.venv/bin/ruff format --check ironic_lite lite_common neutron_lite nova_lite stacklite tools

STAGE=mypy
.venv/bin/python -m mypy

STAGE=docs
DOCS_OUT="$(mktemp -d)"
# (the eventlet deprecation notice it prints comes from the option
# listing's import of oslo.service; it is not a Sphinx warning)
.venv/bin/sphinx-build -W --keep-going -q -b html doc/source "$DOCS_OUT"
rm -rf "$DOCS_OUT"

STAGE=releasenotes
# reno reads the notes from the git history (releasenotes/config.yaml);
# a note in the old releasenotes/notes directory would be left out.
if compgen -G 'releasenotes/notes/*.yaml' >/dev/null; then
    echo "run-tests: release notes belong in releasenotes/notes.d," \
        "not releasenotes/notes:" releasenotes/notes/*.yaml >&2
    false
fi
.venv/bin/reno -q lint
NOTES_OUT="$(mktemp -d)"
.venv/bin/sphinx-build -W --keep-going -q -a -E -b html releasenotes/source \
    "$NOTES_OUT"
rm -rf "$NOTES_OUT"

STAGE=pytest
set +e
# --dist loadfile runs each test module on one worker, so an integration
# module starts its deployment once. (--dist loadgroup would be finer, but
# xdist 3.8's xdist_group marks have no effect under pytest 9.)
#
# The workers take the modules in the order given: the longest first, so
# that both workers end together. (xdist's default order, by number of
# tests per module, put the long integration modules of one or two tests
# last, where one worker ran them alone for minutes.) pytest keeps the
# order of arguments that do not overlap, hence one argument per file.
# (The order: the module times run-tests printed on 28 Nov 2026, see
# tools/module_times.py; a module missing here goes after these, in
# path order.)
LONGEST_FIRST=(
    ironic_lite/tests/functional/test_fuzz.py
    nova_lite/tests/integration/test_baremetal_agents.py
    nova_lite/tests/functional/test_api.py
    nova_lite/tests/integration/test_move.py
    nova_lite/tests/functional/test_rebuild.py
    nova_lite/tests/integration/test_evacuation_model.py
    nova_lite/tests/functional/test_fuzz.py
    nova_lite/tests/integration/test_evacuation_safety.py
    ironic_lite/tests/integration/test_hardware_types.py
    ironic_lite/tests/integration/test_deploy_faults.py
    ironic_lite/tests/functional/test_clients.py
    nova_lite/tests/integration/test_compute_twin.py
    ironic_lite/tests/functional/test_api.py
    nova_lite/tests/integration/test_identity.py
    ironic_lite/tests/integration/test_cleaning.py
    nova_lite/tests/integration/test_multiprocess.py
    nova_lite/tests/integration/test_flows_end.py
    nova_lite/tests/functional/test_move_recovery.py
    nova_lite/tests/integration/test_docs.py
    nova_lite/tests/integration/test_install_guide.py
    nova_lite/tests/integration/test_aio.py
    nova_lite/tests/integration/test_aio_emulate.py
    ironic_lite/tests/functional/test_agent_deploy.py
    nova_lite/tests/integration/test_evacuate.py
    ironic_lite/tests/functional/test_conductor.py
    nova_lite/tests/functional/test_shelve.py
    nova_lite/tests/integration/test_scheduling.py
    nova_lite/tests/integration/test_readme.py
    nova_lite/tests/integration/test_aio_emulate_restart.py
    ironic_lite/tests/integration/test_conductor_identity.py
    ironic_lite/tests/integration/test_fault_injection.py
)
# (a module of the list that is gone is simply not in it)
mapfile -t LONGEST_FIRST < <(for f in "${LONGEST_FIRST[@]}"; do
    [[ -f $f ]] && echo "$f"; done)
mapfile -t OTHERS < <(find nova_lite/tests ironic_lite/tests neutron_lite/tests lite_common/tests \
    -name 'test_*.py' | sort | grep -vxF -f <(printf '%s\n' "${LONGEST_FIRST[@]}"))
# STACKLITE_TEST_REPORT keeps the JUnit report (default: a temporary
# file, removed at the end).
REPORT="${STACKLITE_TEST_REPORT:-$(mktemp --suffix=.xml)}"
.venv/bin/python -m pytest -n 2 --dist loadfile --no-loadscope-reorder \
    -p no:cacheprovider --junitxml="$REPORT" \
    "${LONGEST_FIRST[@]}" "${OTHERS[@]}" "$@"
rc=$?
set -e
.venv/bin/python tools/module_times.py "$REPORT"
if ((rc == 5)); then
    echo "run-tests: pytest collected no tests" >&2
elif ((rc != 0)); then
    echo "run-tests: summary of the failures (details above):"
    .venv/bin/python tools/failure_summary.py "$REPORT"
fi
[[ -n ${STACKLITE_TEST_REPORT:-} ]] || rm -f "$REPORT"
exit "$rc"
