"""The order in which an allocation tries its candidates (1.79) and
upstream's rules for removing an allocation."""

import types

import pytest

from ironic_lite import exception
from ironic_lite.common import states
from ironic_lite.conductor import allocations


def _nodes(*names):
    return [{'uuid': f'u-{name}', 'name': name} for name in names]


def test_a_node_named_as_the_allocation_comes_first():
    nodes = _nodes('a', 'b', 'c', 'd', 'e')
    for _ in range(20):
        order = allocations.candidate_order({'name': 'd'}, nodes)
        assert order[0]['name'] == 'd'
        assert sorted(n['name'] for n in order) == ['a', 'b', 'c', 'd', 'e']


def test_the_order_is_random_otherwise():
    nodes = _nodes(*'abcdefgh')
    firsts = {
        allocations.candidate_order({'name': None}, nodes)[0]['name']
        for _ in range(200)
    }
    assert len(firsts) > 1


def _node(**values):
    base = {
        'uuid': 'n',
        'maintenance': False,
        'provision_state': states.AVAILABLE,
        'target_provision_state': None,
    }
    return types.SimpleNamespace(**{**base, **values})


@pytest.mark.parametrize(
    'node',
    [
        _node(),
        _node(provision_state=states.MANAGEABLE),
        _node(provision_state=states.ACTIVE, maintenance=True),
        _node(
            provision_state=states.DEPLOYFAIL,
            target_provision_state=states.ACTIVE,
        ),
    ],
)
def test_an_allocation_may_go(node):
    allocations.check_deallocation(node, {'uuid': 'a'})


@pytest.mark.parametrize(
    'node, message',
    [
        (_node(provision_state=states.ACTIVE), 'the node is active'),
        (
            _node(
                provision_state=states.DEPLOYING,
                target_provision_state=states.ACTIVE,
            ),
            'state deploying',
        ),
        (
            _node(
                provision_state=states.CLEANING,
                target_provision_state=states.AVAILABLE,
            ),
            'state cleaning',
        ),
    ],
)
def test_an_allocation_of_a_busy_or_active_node_stays(node, message):
    with pytest.raises(exception.InvalidState, match=message):
        allocations.check_deallocation(node, {'uuid': 'a'})


def test_the_instance_of_an_allocated_node_is_removed_only_at_rest():
    allocations.check_instance_removal(_node())
    allocations.check_instance_removal(
        _node(provision_state=states.ACTIVE, maintenance=True)
    )
    with pytest.raises(exception.InvalidState, match='instance_uuid'):
        allocations.check_instance_removal(
            _node(provision_state=states.ACTIVE)
        )
