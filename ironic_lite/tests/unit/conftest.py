"""Fixtures shared by the unit tests."""

import pytest

from ironic_lite.tests import db_fixture


@pytest.fixture
def ctx(tmp_path):
    """A migrated SQLite file patched into the transaction context."""
    with db_fixture.migrated_db(
            f'sqlite:///{tmp_path / "ironic.db"}') as context:
        yield context
