"""ironic_lite's policy defaults allow exactly whom upstream Ironic 39's
do (API 1.71, scope-based roles): every rule, every persona.

The reference ``data/upstream_policy_matrix.json`` is what
``tools/policy_matrix.py`` printed for upstream's defaults
(``ironic.common.policy:list_policies`` in a venv with
``ironic==39.0.0``): for each rule, the personas allowed on a node owned
by one project and leased by another.
"""

import json
from pathlib import Path
import sys

import pytest

ROOT = Path(__file__).resolve().parents[3]
if str(ROOT / 'tools') not in sys.path:
    sys.path.insert(0, str(ROOT / 'tools'))

import policy_matrix  # noqa: E402

from ironic_lite import policies  # noqa: E402

REFERENCE = Path(__file__).parent / 'data' / 'upstream_policy_matrix.json'

#: Rules whose table differs from upstream's on purpose.
DIFFERENT = {
    # Upstream's is a deprecated pre-RBAC rule (any admin role) no new
    # default uses; ironic_lite's decides who sees the detailed health
    # check, which is the system's administrators only.
    'is_admin',
}

#: Ours only: the clean steps listing, an extension (system readers),
#: and the system personas as named rules (upstream writes them out in
#: every rule; the tables above show the same people allowed).
OURS_ONLY = {
    'baremetal:node:get_cleaning_steps',
    'system_admin',
    'system_member',
    'system_reader',
    'system_service',
}

#: Upstream rules ironic_lite does not have, and why.
NOT_HERE = {
    # Deprecated pre-RBAC rules (no new default uses them).
    'admin_api',
    'is_member',
    'is_observer',
    'is_node_owner',
    'is_node_lessee',
    'is_allocation_owner',
    'public_api',
    'baremetal:allocation:create_pre_rbac',
    # Secrets in driver_info and instance_info are always masked.
    'show_password',
    'show_instance_secrets',
}


@pytest.fixture(scope='module')
def tables():
    upstream = json.loads(REFERENCE.read_text())
    ours = policy_matrix.matrix(policies.list_rules())
    return upstream, ours


def test_every_rule_allows_whom_upstream_allows(tables) -> None:
    upstream, ours = tables
    differ = {
        name: {
            'more': sorted(set(allowed) - set(upstream[name])),
            'fewer': sorted(set(upstream[name]) - set(allowed)),
        }
        for name, allowed in ours.items()
        if name in upstream
        and name not in DIFFERENT
        and allowed != upstream[name]
    }
    assert differ == {}


def test_every_rule_is_upstream_s_or_accounted_for(tables) -> None:
    upstream, ours = tables
    assert set(ours) - set(upstream) == OURS_ONLY
    assert set(upstream) - set(ours) == NOT_HERE


def test_the_table_tells_scopes_apart(tables) -> None:
    """The personas are told apart: a project's admin is not the
    system's (the test would pass on a table of nothing otherwise)."""
    _, ours = tables
    create = ours['baremetal:node:create']
    assert 'system_admin' in create
    assert 'owner_admin' not in create
    assert 'owner_reader' in ours['baremetal:node:get']
    assert 'other_reader' not in ours['baremetal:node:get']
    # Chassis are system-scoped only: even a project's admin is refused.
    assert ours['baremetal:chassis:get'] == [
        'system_admin',
        'system_manager',
        'system_member',
        'system_reader',
        'system_service',
    ]
