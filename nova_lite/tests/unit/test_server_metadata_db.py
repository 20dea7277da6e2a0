"""Concurrent metadata changes of one server all land (the row is
locked while each is read, checked and written), on every backend."""

from concurrent import futures

from oslo_config import cfg
import pytest

from lite_common import context as lite_context
from lite_common.tests.backends import db_url  # noqa: F401
from nova_lite import exception
from nova_lite.conf import quota as quota_conf
from nova_lite.db import server_metadata as db
from nova_lite.tests import database
from nova_lite.tests.unit.test_db_api import make_instance


@pytest.fixture(autouse=True)
def quota_options():
    quota_conf.register_opts(cfg.CONF)


def test_concurrent_merges_all_land(db_url):  # noqa: F811
    ctx = lite_context.get_admin_context()
    with database.temporary_database(db_url):
        uuid = make_instance(ctx, vm_state='active')['uuid']

        def merge(n: int) -> None:
            db.change(
                ctx,
                uuid,
                lambda current: {**current, f'k{n}': 'v'},
                lambda row: None,
            )

        with futures.ThreadPoolExecutor(6) as pool:
            list(pool.map(merge, range(12)))
        written = db.change(
            ctx, uuid, lambda current: current, lambda row: None
        )
        assert sorted(written) == sorted(f'k{n}' for n in range(12))


def test_a_refusal_writes_nothing(db_url):  # noqa: F811
    ctx = lite_context.get_admin_context()
    with database.temporary_database(db_url):
        uuid = make_instance(ctx, vm_state='active', metadata={'a': '1'})[
            'uuid'
        ]

        def refuse(row: dict) -> None:
            raise exception.InstanceIsLocked(instance_uuid=row['uuid'])

        with pytest.raises(exception.InstanceIsLocked):
            db.change(ctx, uuid, lambda current: {}, refuse)
        assert db.change(
            ctx, uuid, lambda current: current, lambda row: None
        ) == {'a': '1'}
