"""A compute agent has no database, at run time too.

The import rule (lite_common/tests/test_import_layers.py) reads the
source; these tests import the agent in a fresh interpreter and look at
``sys.modules``: neither the database layer nor oslo.db and SQLAlchemy
are there. The object modules reach their database modules through
``nova_lite.objects.base.database_module``, which imports them only in
a process that has a database (``nova_lite.db.api.configure`` ran), and
otherwise says that the call should have gone to the conductor.
"""

import json
import os
from pathlib import Path
import subprocess
import sys

import pytest

from lite_common import context as lite_context
from nova_lite import exception
from nova_lite.common import has_database
from nova_lite.objects import base
from nova_lite.objects import instance as instance_obj

ROOT = Path(__file__).resolve().parents[3]

#: What a process without a database must not have imported.
DATABASE_MODULES = ('nova_lite.db', 'sqlalchemy', 'oslo_db')

_LOADED = """
import json, sys
print(json.dumps(sorted(
    m for m in sys.modules
    if any(m == p or m.startswith(p + '.') for p in %r)
)))
""" % (DATABASE_MODULES,)

AGENT = (
    """
import importlib, pkgutil
from oslo_config import cfg
import nova_lite.cmd.compute
from nova_lite import conf as nova_conf
import nova_lite.objects
import nova_lite.virt

nova_lite.objects.register_all()
for package in (nova_lite.objects, nova_lite.virt):
    for info in pkgutil.iter_modules(package.__path__):
        importlib.import_module(f'{package.__name__}.{info.name}')
# The options nova-lite-compute registers (its main's load_config).
conf = cfg.ConfigOpts()
nova_conf.register_all(conf, database=False)
conf([], project='nova-lite', default_config_files=[], default_config_dirs=[])
"""
    + _LOADED
)

NO_DATABASE = (
    """
import json
from lite_common import context
from nova_lite import exception
import nova_lite.objects
from nova_lite.objects import instance, migration

nova_lite.objects.register_all()
ctx = context.get_admin_context()
calls = {
    'Instance.get_by_uuid': lambda: instance.Instance.get_by_uuid(
        ctx, '00000000-0000-0000-0000-000000000001'
    ),
    'Migration.claim_destination': lambda: migration.Migration(
        ctx, id=1, instance_uuid='00000000-0000-0000-0000-000000000001'
    ).claim_destination(1, 1, 64, 1),
}
errors = {}
for name, call in calls.items():
    try:
        call()
    except exception.NoDatabase as exc:
        errors[name] = str(exc)
    else:
        errors[name] = None
print(json.dumps(errors))
"""
    + _LOADED
)

CONFIGURED = """
import json, sys
from oslo_config import cfg
from lite_common import context
from nova_lite import conf as nova_conf
from nova_lite import exception
from nova_lite.db import api as db_api
from nova_lite.db import migration
import nova_lite.objects
from nova_lite.objects import instance

nova_lite.objects.register_all()
conf = cfg.ConfigOpts()
nova_conf.register_all(conf)
conf(
    ['--config-file', sys.argv[1]],
    project='nova-lite',
    default_config_files=[],
    default_config_dirs=[],
)
db_api.configure(conf)
migration.db_sync(db_api.get_engine())
try:
    instance.Instance.get_by_uuid(
        context.get_admin_context(), '00000000-0000-0000-0000-000000000001'
    )
except exception.InstanceNotFound:
    print(json.dumps('not found'))
"""


def _run(script: str, *args: str) -> list[str]:
    """The lines ``script`` prints, run by a fresh interpreter that
    imports this tree's packages."""
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    proc = subprocess.run(
        [sys.executable, '-c', script, *args],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    return proc.stdout.splitlines()


def test_the_agent_imports_no_database():
    """nova-lite-compute's command, every object module and every virt
    driver, and the options the agent registers: nothing of the
    database."""
    (loaded,) = _run(AGENT)
    assert json.loads(loaded) == []


def test_a_remotable_body_without_a_database_says_so():
    """With no indirection and no database, a remotable method's body
    raises NoDatabase (not an ImportError or AttributeError) and still
    imports nothing of the database: the database layer's modules and
    the scheduler's claims alike."""
    errors, loaded = _run(NO_DATABASE)
    found = json.loads(errors)
    assert set(found) == {
        'Instance.get_by_uuid',
        'Migration.claim_destination',
    }
    for message in found.values():
        assert message is not None
        assert 'this process has none' in message
        assert 'conductor' in message
        assert 'indirection_api' in message
    assert (
        'nova_lite.db.instances.instance_get_by_uuid'
        in (found['Instance.get_by_uuid'])
    )
    assert (
        'nova_lite.scheduler.claims.' in (found['Migration.claim_destination'])
    )
    assert json.loads(loaded) == []


def test_configure_gives_the_process_its_database(tmp_path):
    """``db_api.configure`` turns the switch on: the same call runs its
    body against the database."""
    conf = tmp_path / 'nova.conf'
    conf.write_text(f'[database]\nconnection = sqlite:///{tmp_path}/n.db\n')
    assert _run(CONFIGURED, str(conf)) == ['"not found"']


@pytest.fixture
def no_database(monkeypatch):
    monkeypatch.setattr(has_database._PRESENCE, 'present', False)


def test_a_database_module_imports_nothing_without_a_database(no_database):
    missing = base.database_module('nova_lite.tests.unit.no_such_module')
    with pytest.raises(exception.NoDatabase) as caught:
        missing.anything  # noqa: B018
    assert isinstance(caught.value, exception.ObjectActionError)
    assert 'nova_lite.tests.unit.no_such_module.anything' in str(caught.value)
    assert 'nova_lite.tests.unit.no_such_module' not in sys.modules


def test_introspection_is_not_a_database_call(no_database):
    module = base.database_module('nova_lite.db.instances')
    assert not hasattr(module, '__wrapped__')
    assert 'nova_lite.db.instances' in repr(module)


def test_the_test_database_is_a_database(db):
    """The unit tests' database (nova_lite.tests.database) turns the
    switch on for its block: the body runs, and finds nothing."""
    assert has_database.enabled()
    module = base.database_module('nova_lite.db.instances')
    assert callable(module.instance_get_by_uuid)
    with pytest.raises(exception.InstanceNotFound):
        instance_obj.Instance.get_by_uuid(
            lite_context.get_admin_context(),
            '00000000-0000-0000-0000-000000000001',
        )
