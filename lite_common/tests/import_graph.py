"""The project's import graph, read from the source with :mod:`ast`
(nothing is imported): module -> the project modules it imports, at any
depth of the file (functions included: a deferred import is still an
import of the process that runs it).

Imports in the body of an ``if TYPE_CHECKING:`` (or ``if
typing.TYPE_CHECKING:``) block are left out: only a type checker runs
them, no process does (an object module names its database module
there for mypy, and reaches it at run time only in a process that has
a database: ``nova_lite.objects.base.database_module``). Their ``else``
branch is a runtime import like any other.

Only the four packages count (``nova_lite``, ``ironic_lite``,
``lite_common``, ``stacklite``), without their tests.
"""

import ast
from collections.abc import Callable
from collections.abc import Iterable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = (
    'nova_lite',
    'ironic_lite',
    'neutron_lite',
    'lite_common',
    'stacklite',
)

Graph = dict[str, set[str]]
Edge = tuple[str, str]


def _module_files(root: Path) -> dict[str, Path]:
    found = {}
    for package in PACKAGES:
        for path in (root / package).rglob('*.py'):
            parts = list(path.relative_to(root).with_suffix('').parts)
            if 'tests' in parts:
                continue
            if parts[-1] == '__init__':
                parts.pop()
            found['.'.join(parts)] = path
    return found


def _named(
    node: ast.AST, module: str, is_package: bool, modules: set[str]
) -> set[str]:
    """The project modules an import statement imports: ``from a import
    b`` imports module ``a.b`` if there is one, else (a name of) ``a``."""
    if isinstance(node, ast.Import):
        names = {alias.name for alias in node.names}
    else:
        assert isinstance(node, ast.ImportFrom)
        base = node.module or ''
        if node.level:
            parts = module.split('.')
            keep = len(parts) - node.level + (1 if is_package else 0)
            base = '.'.join(parts[:keep] + ([base] if base else []))
        names = {
            f'{base}.{alias.name}'
            if f'{base}.{alias.name}' in modules
            else base
            for alias in node.names
        }
    found = set()
    for name in names:
        while name and name not in modules:
            name = name.rpartition('.')[0]
        if name:
            found.add(name)
    return found


def _is_type_checking(test: ast.expr) -> bool:
    """``TYPE_CHECKING`` or ``<module>.TYPE_CHECKING``."""
    if isinstance(test, ast.Name):
        return test.id == 'TYPE_CHECKING'
    return isinstance(test, ast.Attribute) and test.attr == 'TYPE_CHECKING'


def _runtime_imports(tree: ast.AST) -> Iterable[ast.Import | ast.ImportFrom]:
    """Every import statement of ``tree`` but those only a type checker
    runs (in the body of an ``if TYPE_CHECKING:``)."""
    todo = [tree]
    while todo:
        node = todo.pop()
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            yield node
        elif isinstance(node, ast.If) and _is_type_checking(node.test):
            todo.extend(node.orelse)
            continue
        todo.extend(ast.iter_child_nodes(node))


def build(root: Path = ROOT) -> Graph:
    files = _module_files(root)
    modules = set(files)
    graph: Graph = {}
    for module, path in files.items():
        tree = ast.parse(path.read_text(), str(path))
        imported: set[str] = set()
        for node in _runtime_imports(tree):
            imported |= _named(
                node, module, path.name == '__init__.py', modules
            )
        imported.discard(module)
        graph[module] = imported
    return graph


def closure(graph: Graph, starts: Iterable[str]) -> set[str]:
    """Every module the ``starts`` import, directly or not (with them)."""
    seen: set[str] = set()
    todo = [start for start in starts if start in graph]
    while todo:
        module = todo.pop()
        if module not in seen:
            seen.add(module)
            todo.extend(graph[module])
    return seen


def crossings(
    graph: Graph, starts: Iterable[str], forbidden: Callable[[str], bool]
) -> set[Edge]:
    """The imports by which the modules reachable from ``starts`` reach
    a forbidden module: (importer, imported), the importer allowed."""
    return {
        (module, target)
        for module in closure(graph, starts)
        if not forbidden(module)
        for target in graph[module]
        if forbidden(target)
    }


def in_package(*packages: str) -> Callable[[str], bool]:
    def inside(module: str) -> bool:
        return any(module == p or module.startswith(p + '.') for p in packages)

    return inside
