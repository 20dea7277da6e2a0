"""The database side of the power state sync: one run reads its nodes
with a constant number of queries, and only a node to correct costs
queries of its own. Alone in its module: a second stack in the process
would share the database engine (and add its periodic tasks'
queries)."""

from typing import Any

from oslo_utils import uuidutils
import sqlalchemy as sa

from ironic_lite.common.conductor_identity import ConductorIdentity
from ironic_lite.conductor import power_sync
from ironic_lite.db import api as db_api
from ironic_lite.db import conductors as db_conductors
from ironic_lite.db import nodes as db_nodes
from ironic_lite.tests.functional import fixtures
from lite_common import context as lite_context


def _count_queries(func: Any) -> int:
    engine = db_api.context_manager.writer.get_engine()
    seen: list[str] = []

    def count(*args: Any) -> None:
        seen.append(str(args[2]))

    sa.event.listen(engine, 'before_cursor_execute', count)
    try:
        func()
    finally:
        sa.event.remove(engine, 'before_cursor_execute', count)
    return len(seen)


def test_queries_per_run_do_not_grow_with_the_nodes():
    # No conductor service (its periodic tasks would query too): a
    # conductor registered by hand owns the nodes.
    quiet = fixtures.Stack().start(conductor=False)
    try:
        context = lite_context.get_admin_context()
        identity = ConductorIdentity.new(quiet.conf.host)
        db_conductors.register(context, identity, ['fake-hardware'], '', {})
        sync = power_sync.PowerSync(quiet.conf, identity)

        def add_fake_nodes(count: int) -> None:
            for _ in range(count):
                db_nodes.node_create(
                    context,
                    {
                        'uuid': uuidutils.generate_uuid(),
                        'driver': 'fake-hardware',
                        'provision_state': 'manageable',
                        'power_state': 'power off',
                    },
                )

        add_fake_nodes(2)
        small = _count_queries(sync.sync_power_states)
        add_fake_nodes(20)
        assert _count_queries(sync.sync_power_states) == small
        assert small <= 4  # the nodes, the conductors
        # And a node whose power changed costs its own queries only.
        first = db_nodes.node_list(context)[0]
        db_nodes.node_update(context, first['id'], {'power_state': None})
        assert _count_queries(sync.sync_power_states) > small
        assert db_nodes.node_get(context, first['id'])['power_state'] == (
            'power off'
        )
    finally:
        quiet.stop()
