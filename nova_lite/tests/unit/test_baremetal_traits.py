"""A flavor's required and forbidden traits, on real databases (the
queries on SQLite, MariaDB and PostgreSQL): the
candidate query and the claim's conditional UPDATE both match them, so a
node whose traits change between the two is not taken; names that
differ only where LIKE has wildcards are told apart; the compute node
record keeps what the driver reports."""

import uuid

import pytest

from lite_common import context as lite_context
from lite_common.tests import backends
from nova_lite import exception
from nova_lite.compute import resources
from nova_lite.db import compute_nodes
from nova_lite.objects import compute_node as cn_obj
from nova_lite.scheduler import claims
from nova_lite.tests import database
from nova_lite.tests.unit.test_claims import _instance
from nova_lite.tests.unit.test_claims import _service
from nova_lite.tests.unit.test_whole_machines import RC
from nova_lite.tests.unit.test_whole_machines import _machine
from nova_lite.virt import driver as virt_driver

# The fixture, by its name: a new database on each backend.
db_url = backends.db_url


@pytest.fixture
def any_ctx(db_url):
    """An admin context on a migrated database of each backend."""
    with database.temporary_database(db_url):
        yield lite_context.get_admin_context()


def _traited(ctx, svc, *traits):
    node = _machine(ctx, svc)
    return compute_nodes.compute_node_update(
        ctx, node['id'], {'traits': list(traits) or None}
    )


def _req(inst, required=(), forbidden=()):
    return claims.Request(
        inst['uuid'],
        0,
        0,
        0,
        resource_class=RC,
        required_traits=tuple(required),
        forbidden_traits=tuple(forbidden),
    )


def test_flavor_traits_from_extra_specs():
    specs = {
        'trait:CUSTOM_GOLD': 'required',
        'trait:CUSTOM_RAID': 'required',
        'trait:CUSTOM_OLD': 'forbidden',
        'trait:CUSTOM_X': 'optional',
        'resources:CUSTOM_BAREMETAL': '1',
    }
    assert claims.flavor_traits({'extra_specs': specs}) == (
        ('CUSTOM_GOLD', 'CUSTOM_RAID'),
        ('CUSTOM_OLD',),
    )
    assert claims.flavor_traits(None) == ((), ())


def test_required_and_forbidden_traits_choose_the_node(any_ctx, conf):  # noqa: F811,E501
    ctx = any_ctx
    agent = _service(ctx, 'ironic-compute')
    gold = _traited(ctx, agent, 'CUSTOM_GOLD', 'CUSTOM_RAID')
    plain = _traited(ctx, agent)
    node = claims.select_and_claim(
        ctx, conf, _req(_instance(ctx, 0, 0, 0), ['CUSTOM_GOLD'])
    )
    assert node.id == gold['id']
    with pytest.raises(exception.NoValidHost) as caught:
        claims.select_and_claim(
            ctx, conf, _req(_instance(ctx, 0, 0, 0), ['CUSTOM_GOLD'])
        )
    assert 'with traits CUSTOM_GOLD' in str(caught.value)
    node = claims.select_and_claim(
        ctx, conf, _req(_instance(ctx, 0, 0, 0), forbidden=['CUSTOM_GOLD'])
    )
    assert node.id == plain['id']


def test_like_wildcards_do_not_match_other_traits(any_ctx, conf):  # noqa: F811,E501
    ctx = any_ctx
    agent = _service(ctx, 'ironic-compute')
    _traited(ctx, agent, 'CUSTOM_AXB', 'CUSTOM_GOLD_X')
    for wanted in ('CUSTOM_A_B', 'CUSTOM_GOLD', 'CUSTOM_%'):
        with pytest.raises(exception.NoValidHost):
            claims.select_and_claim(
                ctx, conf, _req(_instance(ctx, 0, 0, 0), [wanted])
            )
    forbidden = _req(_instance(ctx, 0, 0, 0), forbidden=['CUSTOM_A_B'])
    assert claims.select_and_claim(ctx, conf, forbidden) is not None


def test_the_claim_checks_the_traits_again(ctx, conf):  # noqa: F811
    """A candidate read before its traits changed is not claimed."""
    agent = _service(ctx, 'ironic-compute')
    gold = _traited(ctx, agent, 'CUSTOM_GOLD')
    req = _req(_instance(ctx, 0, 0, 0), ['CUSTOM_GOLD'])
    with claims.db_api.context_manager.reader.using(ctx) as session:
        [candidate] = claims.candidates(session, conf, req)
    compute_nodes.compute_node_update(ctx, gold['id'], {'traits': None})
    assert claims.claim_on(ctx, conf, req, candidate) is False
    assert (
        compute_nodes.compute_node_get(ctx, id=gold['id'])['running_vms'] == 0
    )


def test_reported_traits_are_recorded(ctx, conf):  # noqa: F811
    agent = _service(ctx, 'ironic-compute')
    node_uuid = str(uuid.uuid4())
    res = virt_driver.NodeResources(
        vcpus=0,
        memory_mb=0,
        local_gb=0,
        hypervisor_type='ironic',
        hypervisor_version=1,
        hypervisor_hostname=node_uuid,
        resource_class=RC,
        traits=['CUSTOM_B', 'CUSTOM_A'],
    )
    node = resources.ensure_node(
        ctx, conf, 'ironic-compute', agent['id'], node_uuid, res, node_uuid
    )
    assert cn_obj.ComputeNode.get_by_uuid(ctx, node.uuid).traits == [
        'CUSTOM_A',
        'CUSTOM_B',
    ]
    res['traits'] = []
    resources.ensure_node(
        ctx, conf, 'ironic-compute', agent['id'], node_uuid, res, node_uuid
    )
    assert cn_obj.ComputeNode.get_by_uuid(ctx, node.uuid).traits is None
