"""Every integer a request schema accepts has a maximum (what an INTEGER
column holds), so that no number reaches SQL unchecked."""

import importlib
import pkgutil
import unittest


def integer_properties_without_maximum(
    schema: object, path: str = ''
) -> list[str]:
    """Every place in ``schema`` that accepts an integer with no
    ``maximum`` (for the schema-walking tests of both services)."""
    found = []
    if isinstance(schema, dict):
        kinds = schema.get('type')
        kinds = [kinds] if isinstance(kinds, str) else kinds
        kinds = kinds if isinstance(kinds, list) else []
        if 'integer' in kinds and 'maximum' not in schema:
            found.append(path or '/')
        for key, value in schema.items():
            found += integer_properties_without_maximum(value, f'{path}/{key}')
    elif isinstance(schema, list):
        for index, value in enumerate(schema):
            found += integer_properties_without_maximum(
                value, f'{path}/{index}'
            )
    return found


class _Version:
    def at_least(self, version: str) -> bool:
        return True


def schemas_of(package: str) -> dict[str, object]:
    found: dict[str, object] = {}
    pkg = importlib.import_module(package)
    for info in pkgutil.iter_modules(pkg.__path__):
        if info.ispkg:
            continue  # schemas.responses: what the API answers
        module = importlib.import_module(f'{package}.{info.name}')
        for name, value in vars(module).items():
            if name.startswith('__'):
                continue
            if isinstance(value, dict):
                found[f'{info.name}.{name}'] = value
            elif callable(value) and name in ('create', 'create_for'):
                found[f'{info.name}.{name}()'] = value(_Version())
    return found


class SchemaBoundsTest(unittest.TestCase):
    def test_every_integer_has_a_maximum(self) -> None:
        for package in ('nova_lite.api.schemas', 'ironic_lite.api.schemas'):
            for name, schema in schemas_of(package).items():
                with self.subTest(schema=name):
                    self.assertEqual(
                        [], integer_properties_without_maximum(schema)
                    )
