"""Fixtures shared by the unit tests."""

import pytest

from ironic_lite.tests import db_fixture


@pytest.fixture
def ctx(tmp_path):
    """A migrated SQLite file patched into the transaction context."""
    with db_fixture.migrated_db(
        f'sqlite:///{tmp_path / "ironic.db"}'
    ) as context:
        yield context


def pytest_make_parametrize_id(config, val, argname):
    """No ``:`` in a test id: gabbi's pytest plugin, loaded for the API
    tests, takes every collected test whose name has one for a gabbi
    test of a suite and fails the whole collection (a KeyError in its
    collection hook). Messages with colons are frequent parameters."""
    if isinstance(val, str) and ':' in val:
        return val.replace(':', ';')
    return None
