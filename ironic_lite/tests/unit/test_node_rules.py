"""The rules of the protected and retired flags (conductor side)."""

import types

import pytest

from ironic_lite import exception
from ironic_lite.conductor import node_rules


def _node(state: str, **fields: object) -> types.SimpleNamespace:
    values = {
        'uuid': 'n-1',
        'provision_state': state,
        'protected': False,
        'protected_reason': None,
        'retired': False,
        'retired_reason': None,
    }
    values.update(fields)
    return types.SimpleNamespace(**values)


def test_protected_only_in_active():
    with pytest.raises(exception.InvalidState, match="'manageable'"):
        node_rules.check_update(_node('manageable'), {'protected': True})
    values = node_rules.check_update(
        _node('active'), {'protected': True, 'protected_reason': 'db'}
    )
    assert values == {'protected': True, 'protected_reason': 'db'}


def test_unsetting_a_flag_clears_its_reason():
    node = _node('active', protected=True, protected_reason='db')
    assert node_rules.check_update(node, {'protected': False}) == {
        'protected': False,
        'protected_reason': None,
    }
    node = _node('manageable', retired=True, retired_reason='old')
    assert node_rules.check_update(node, {'retired': False}) == {
        'retired': False,
        'retired_reason': None,
    }


def test_a_reason_needs_its_flag():
    with pytest.raises(
        exception.InvalidParameterValue,
        match='protected_reason field can only be set',
    ):
        node_rules.check_update(_node('active'), {'protected_reason': 'x'})
    # With the flag already set, a reason alone is fine.
    node = _node('active', retired=True)
    assert node_rules.check_update(node, {'retired_reason': 'x'}) == {
        'retired_reason': 'x'
    }


def test_retired_not_in_available():
    with pytest.raises(exception.InvalidState, match="'available'"):
        node_rules.check_update(_node('available'), {'retired': True})
    assert node_rules.check_update(_node('active'), {'retired': True})


def test_actions_the_flags_refuse():
    with pytest.raises(exception.NodeProtected) as raised:
        node_rules.check_action(
            _node('active', protected=True), 'delete', 'undeploy'
        )
    assert raised.value.code == 403
    with pytest.raises(exception.NodeIsRetired, match='providing'):
        node_rules.check_action(
            _node('manageable', retired=True), 'provide', 'provide'
        )
    node_rules.check_action(
        _node('active', protected=True), 'manage', 'manage'
    )
    with pytest.raises(exception.NodeProtected):
        node_rules.check_destroy(_node('active', protected=True))
