"""Checks every API's OpenAPI document passes: valid OpenAPI 3.1, and
every operation of its route table described or listed as not yet
(each API's ``test_openapi`` calls them with its own list)."""

from collections.abc import Callable
from collections.abc import Collection
from collections.abc import Mapping
from typing import Any

import openapi_spec_validator

from lite_common.wsgi import openapi
from lite_common.wsgi.router import RouteTable


def assert_valid(doc: Mapping[str, Any]) -> None:
    """A valid OpenAPI 3.1 document, one operationId per operation."""
    openapi_spec_validator.validate(doc)
    ids = [
        operation['operationId']
        for item in doc['paths'].values()
        for operation in item.values()
        if isinstance(operation, dict) and 'operationId' in operation
    ]
    assert len(ids) == len(set(ids)), 'operationId must be unique'


def assert_covered(
    table: RouteTable,
    descriptions: openapi.Descriptions,
    not_yet: Collection[str],
    include: Callable[[str], bool] = lambda path: True,
) -> tuple[int, int]:
    """Every operation (``'GET /path'``) of ``table`` is described or in
    ``not_yet``, and nothing in ``not_yet`` is described or gone; the
    number described and the total."""
    described, undescribed = openapi.described_operations(
        table, descriptions, include
    )
    assert sorted(undescribed) == sorted(not_yet), (
        'describe these or list them as not yet described: '
        f'{sorted(set(undescribed) - set(not_yet))}; '
        f'described or gone, take off the list: '
        f'{sorted(set(not_yet) - set(undescribed))}'
    )
    total = len(described) + len(undescribed)
    print(f'{len(described)} of {total} operations described')
    return len(described), total
