"""Which process may import what, checked on the import graph
(:mod:`import_graph`: read with ast, nothing imported).

Each rule names a process's entry modules and what their imports may
never reach. ``KNOWN`` lists the crossings there were when the rule was
written (issue 32 removes them): a new crossing fails the test, and so
does a listed one that is gone, so that the list only shrinks.
"""

from pathlib import Path

import pytest

from lite_common.tests import import_graph

GRAPH = import_graph.build()


def _nova_agent() -> list[str]:
    """nova-lite-compute: its command, every virt driver."""
    return [
        'nova_lite.cmd.compute',
        *(m for m in GRAPH if m.startswith('nova_lite.virt.')),
    ]


def _every(package: str) -> list[str]:
    return [m for m in GRAPH if import_graph.in_package(package)(m)]


def _agent_code_but_its_rpc_client(module: str) -> bool:
    """nova_lite/compute/ (the agent) and the virt drivers; the agent's
    RPC client, which the API casts with, aside."""
    if module in ('nova_lite.compute', 'nova_lite.compute.rpcapi'):
        return False
    return import_graph.in_package('nova_lite.compute', 'nova_lite.virt')(
        module
    )


#: The conductor modules ironic-lite-api runs: the RPC client.
IRONIC_RPC_CLIENT = (
    'ironic_lite.conductor',
    'ironic_lite.conductor.rpcapi',
    'ironic_lite.conductor.rpcapi_hardware',
    'ironic_lite.conductor.routing',
)


def _ironic_api_forbidden(module: str) -> bool:
    """The conductor's and the drivers' code (the RPC client, its
    routing and the package they live in aside)."""
    if module in IRONIC_RPC_CLIENT:
        return False
    return import_graph.in_package(
        'ironic_lite.conductor', 'ironic_lite.drivers'
    )(module)


RULES = {
    'lite_common imports no service': (
        lambda: _every('lite_common'),
        import_graph.in_package('nova_lite', 'ironic_lite', 'stacklite'),
    ),
    'nova_lite does not import ironic_lite': (
        lambda: _every('nova_lite'),
        import_graph.in_package('ironic_lite'),
    ),
    'ironic_lite does not import nova_lite': (
        lambda: _every('ironic_lite'),
        import_graph.in_package('nova_lite'),
    ),
    'a compute agent has no database': (
        _nova_agent,
        import_graph.in_package('nova_lite.db'),
    ),
    'nova-lite-api runs no agent code': (
        lambda: ['nova_lite.cmd.api'],
        _agent_code_but_its_rpc_client,
    ),
    'nova-lite-conductor runs no HTTP or API-side code': (
        lambda: ['nova_lite.cmd.conductor'],
        import_graph.in_package(
            'nova_lite.api', 'nova_lite.compute_api', 'nova_lite.virt'
        ),
    ),
    'nova-lite-compute runs no HTTP or API-side code': (
        _nova_agent,
        import_graph.in_package('nova_lite.api', 'nova_lite.compute_api'),
    ),
    'ironic-lite-api runs no conductor or driver code': (
        lambda: ['ironic_lite.api.app'],
        _ironic_api_forbidden,
    ),
    'the agent on a machine reaches the API only': (
        lambda: _every('ironic_lite.agent'),
        import_graph.in_package(
            'ironic_lite.db',
            'ironic_lite.conductor',
            'ironic_lite.api',
            'ironic_lite.drivers',
        ),
    ),
}

KNOWN: dict[str, set[tuple[str, str]]] = {
    'a compute agent has no database': {
        ('nova_lite.objects.compute_node', 'nova_lite.db.compute_nodes'),
        ('nova_lite.objects.flavor', 'nova_lite.db.flavors'),
        ('nova_lite.objects.instance', 'nova_lite.db.images'),
        ('nova_lite.objects.instance', 'nova_lite.db.instances'),
        ('nova_lite.objects.instance', 'nova_lite.db.links'),
        ('nova_lite.objects.instance_action', 'nova_lite.db.instance_actions'),
        ('nova_lite.objects.migration', 'nova_lite.db.links'),
        ('nova_lite.objects.migration', 'nova_lite.db.migrations'),
        ('nova_lite.objects.service', 'nova_lite.db.service_identity'),
        ('nova_lite.objects.service', 'nova_lite.db.services'),
        ('nova_lite.scheduler.claims', 'nova_lite.db.api'),
        ('nova_lite.scheduler.claims', 'nova_lite.db.compute_nodes'),
        ('nova_lite.scheduler.claims', 'nova_lite.db.migrations'),
        ('nova_lite.scheduler.claims', 'nova_lite.db.models'),
        ('nova_lite.scheduler.constraints', 'nova_lite.db.aggregates'),
        ('nova_lite.scheduler.constraints', 'nova_lite.db.models'),
        ('nova_lite.scheduler.constraints', 'nova_lite.db.server_groups'),
        ('nova_lite.scheduler.diagnosis', 'nova_lite.db.models'),
    },
}


def _describe(edges: set[tuple[str, str]]) -> str:
    return '\n'.join(f'  {a} imports {b}' for a, b in sorted(edges))


@pytest.mark.parametrize('rule', sorted(RULES))
def test_no_new_crossing_and_the_known_ones_shrink(rule):
    starts, forbidden = RULES[rule]
    found = import_graph.crossings(GRAPH, starts(), forbidden)
    known = KNOWN.get(rule, set())
    assert not found - known, (
        f'{rule}: a forbidden import\n{_describe(found - known)}'
    )
    assert not known - found, (
        f'{rule}: gone, remove from KNOWN\n{_describe(known - found)}'
    )


def test_the_entry_modules_exist():
    for rule, (starts, _) in RULES.items():
        assert set(starts()) <= set(GRAPH), rule


def _tree(root: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)


def test_a_forbidden_import_is_found_at_any_depth(tmp_path):
    """An agent module reaching the database through another module,
    by relative and deferred imports, is caught; the edge named is the
    one that crosses."""
    _tree(
        tmp_path,
        {
            'nova_lite/__init__.py': '',
            'nova_lite/db/__init__.py': '',
            'nova_lite/db/instances.py': 'STATE = 1\n',
            'nova_lite/compute/__init__.py': '',
            'nova_lite/compute/manager.py': 'from . import helper\n',
            'nova_lite/compute/helper.py': (
                'def f():\n    from nova_lite.db import instances\n'
            ),
            'nova_lite/compute_api/moves.py': (
                'from nova_lite.db import instances\n'
            ),
        },
    )
    graph = import_graph.build(tmp_path)
    assert graph['nova_lite.compute.manager'] == {'nova_lite.compute.helper'}
    found = import_graph.crossings(
        graph,
        ['nova_lite.compute.manager'],
        import_graph.in_package('nova_lite.db'),
    )
    assert found == {('nova_lite.compute.helper', 'nova_lite.db.instances')}
