"""Which process may import what, checked on the import graph
(:mod:`import_graph`: read with ast, nothing imported).

Each rule names a process's entry modules (read from a graph) and what
their imports may never reach. ``KNOWN`` lists crossings a rule
tolerates for now (issue 32 removed the last: the compute agent's
object modules reach the database only at run time, in a process that
has one, see ``nova_lite.objects.base.database_module``): a new
crossing fails the test, and so does a listed one that is gone, so that
the list only shrinks.
"""

from collections.abc import Callable
from pathlib import Path
import shutil

import pytest

from lite_common.tests import import_graph

GRAPH = import_graph.build()

Edges = set[tuple[str, str]]
Starts = Callable[[import_graph.Graph], list[str]]


def _nova_agent(graph: import_graph.Graph) -> list[str]:
    """nova-lite-compute: its command, every virt driver."""
    return [
        'nova_lite.cmd.compute',
        *(m for m in graph if m.startswith('nova_lite.virt.')),
    ]


def _every(package: str) -> Starts:
    def starts(graph: import_graph.Graph) -> list[str]:
        return [m for m in graph if import_graph.in_package(package)(m)]

    return starts


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


RULES: dict[str, tuple[Starts, Callable[[str], bool]]] = {
    'lite_common imports no service': (
        _every('lite_common'),
        import_graph.in_package(
            'nova_lite', 'ironic_lite', 'neutron_lite', 'stacklite'
        ),
    ),
    'neutron_lite imports neither compute nor bare metal': (
        _every('neutron_lite'),
        import_graph.in_package('nova_lite', 'ironic_lite', 'stacklite'),
    ),
    'nova_lite and ironic_lite do not import neutron_lite': (
        lambda graph: (
            _every('nova_lite')(graph) + _every('ironic_lite')(graph)
        ),
        import_graph.in_package('neutron_lite'),
    ),
    'nova_lite does not import ironic_lite': (
        _every('nova_lite'),
        import_graph.in_package('ironic_lite'),
    ),
    'ironic_lite does not import nova_lite': (
        _every('ironic_lite'),
        import_graph.in_package('nova_lite'),
    ),
    'a compute agent has no database': (
        _nova_agent,
        import_graph.in_package('nova_lite.db'),
    ),
    'nova-lite-api runs no agent code': (
        lambda graph: ['nova_lite.cmd.api'],
        _agent_code_but_its_rpc_client,
    ),
    'nova-lite-conductor runs no HTTP or API-side code': (
        lambda graph: ['nova_lite.cmd.conductor'],
        import_graph.in_package(
            'nova_lite.api', 'nova_lite.compute_api', 'nova_lite.virt'
        ),
    ),
    'nova-lite-compute runs no HTTP or API-side code': (
        _nova_agent,
        import_graph.in_package('nova_lite.api', 'nova_lite.compute_api'),
    ),
    'ironic-lite-api runs no conductor or driver code': (
        lambda graph: ['ironic_lite.api.app'],
        _ironic_api_forbidden,
    ),
    'the agent on a machine reaches the API only': (
        _every('ironic_lite.agent'),
        import_graph.in_package(
            'ironic_lite.db',
            'ironic_lite.conductor',
            'ironic_lite.api',
            'ironic_lite.drivers',
        ),
    ),
}

KNOWN: dict[str, Edges] = {}


def _describe(edges: set[tuple[str, str]]) -> str:
    return '\n'.join(f'  {a} imports {b}' for a, b in sorted(edges))


def _problems(graph: import_graph.Graph, rule: str, known: Edges) -> list[str]:
    """What ``rule`` finds wrong in ``graph``: crossings not in
    ``known`` (a forbidden import), and crossings in ``known`` that are
    gone (to remove from KNOWN)."""
    starts, forbidden = RULES[rule]
    found = import_graph.crossings(graph, starts(graph), forbidden)
    problems = []
    if found - known:
        problems.append(
            f'{rule}: a forbidden import\n{_describe(found - known)}'
        )
    if known - found:
        problems.append(
            f'{rule}: gone, remove from KNOWN\n{_describe(known - found)}'
        )
    return problems


@pytest.mark.parametrize('rule', sorted(RULES))
def test_no_new_crossing_and_the_known_ones_shrink(rule):
    problems = _problems(GRAPH, rule, KNOWN.get(rule, set()))
    assert not problems, '\n'.join(problems)


def test_the_entry_modules_exist():
    for rule, (starts, _) in RULES.items():
        assert set(starts(GRAPH)) <= set(GRAPH), rule


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


AGENT_RULE = 'a compute agent has no database'


def test_the_known_crossings_only_shrink(tmp_path):
    """A crossing of a rule fails it unless KNOWN lists it, and a listed
    crossing that is gone fails it too."""
    _tree(
        tmp_path,
        {
            'nova_lite/__init__.py': '',
            'nova_lite/db/__init__.py': '',
            'nova_lite/db/instances.py': '',
            'nova_lite/cmd/__init__.py': '',
            'nova_lite/cmd/compute.py': 'from nova_lite.db import instances\n',
        },
    )
    graph = import_graph.build(tmp_path)
    edge = ('nova_lite.cmd.compute', 'nova_lite.db.instances')
    gone = ('nova_lite.cmd.compute', 'nova_lite.db')
    assert _problems(graph, AGENT_RULE, {edge}) == []
    assert _problems(graph, AGENT_RULE, set()) == [
        f'{AGENT_RULE}: a forbidden import\n{_describe({edge})}'
    ]
    assert _problems(graph, AGENT_RULE, {edge, gone}) == [
        f'{AGENT_RULE}: gone, remove from KNOWN\n{_describe({gone})}'
    ]


def test_imports_for_the_type_checker_only_are_left_out(tmp_path):
    """The body of ``if TYPE_CHECKING:`` (or ``typing.TYPE_CHECKING``)
    is not imported at run time; its ``else:`` is, as is any other
    ``if``."""
    _tree(
        tmp_path,
        {
            'nova_lite/__init__.py': '',
            'nova_lite/base.py': '',
            'nova_lite/db/__init__.py': '',
            'nova_lite/db/instances.py': '',
            'nova_lite/db/links.py': '',
            'nova_lite/db/models.py': '',
            'nova_lite/db/quotas.py': '',
            'nova_lite/objects.py': (
                'import typing\n'
                'from typing import TYPE_CHECKING\n'
                'if TYPE_CHECKING:\n'
                '    from nova_lite.db import instances as db\n'
                'else:\n'
                '    from nova_lite import base\n'
                'if typing.TYPE_CHECKING:\n'
                '    from nova_lite.db import links\n'
                'def f():\n'
                '    if TYPE_CHECKING:\n'
                '        import nova_lite.db.models\n'
                'if DEBUG:\n'
                '    from nova_lite.db import quotas\n'
            ),
        },
    )
    graph = import_graph.build(tmp_path)
    assert graph['nova_lite.objects'] == {
        'nova_lite.base',
        'nova_lite.db.quotas',
    }


def _copy_of_the_project(root: Path) -> None:
    """The four packages' modules (not their tests) under ``root``."""
    for package in import_graph.PACKAGES:
        shutil.copytree(
            import_graph.ROOT / package,
            root / package,
            ignore=shutil.ignore_patterns('tests', '__pycache__', '*.pyc'),
        )


@pytest.mark.parametrize(
    ('module', 'added', 'crossing'),
    [
        # An object module's database module imported at run time.
        (
            'nova_lite/objects/instance.py',
            'from nova_lite.db import links\n',
            ('nova_lite.objects.instance', 'nova_lite.db.links'),
        ),
        # A deferred import in the agent's own code of a module that
        # imports the database.
        (
            'nova_lite/compute/manager.py',
            'def _f():\n    from nova_lite.scheduler import claims\n',
            ('nova_lite.scheduler.claims', 'nova_lite.db.api'),
        ),
    ],
)
def test_the_agent_rule_fails_on_a_database_import(
    tmp_path, module, added, crossing
):
    """The project as it is passes the rule; with one more import that
    reaches the database from the compute agent, it fails, naming the
    import that crosses."""
    _copy_of_the_project(tmp_path)
    known = KNOWN.get(AGENT_RULE, set())
    assert _problems(import_graph.build(tmp_path), AGENT_RULE, known) == []
    path = tmp_path / module
    path.write_text(path.read_text() + added)
    problems = _problems(import_graph.build(tmp_path), AGENT_RULE, known)
    assert len(problems) == 1
    assert problems[0].startswith(f'{AGENT_RULE}: a forbidden import\n')
    assert _describe({crossing}) in problems[0].splitlines()
