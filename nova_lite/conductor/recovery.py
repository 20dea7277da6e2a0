"""Moves and builds the conductor lost, driven again.

A move's first steps are the conductor's: choose a destination, ask it.
When the conductor that had the request died with it (or the message was
lost), nothing else would move it on: the server would stay in
``rebuilding`` or ``resize_prep`` for good. Every
``[conductor]move_recovery_interval`` seconds each conductor looks for
moves stalled longer than ``[conductor]move_stall_timeout`` before any
destination claimed them, and drives them again:

* an evacuation ``accepted`` with no destination chosen: chosen and
  asked again (one chosen but not claimed is resumed by that
  destination's agent itself, see compute/evacuation.py);
* a cold migration or resize ``pre-migrating`` with no destination
  chosen: chosen and asked again; with one chosen but not claimed: that
  destination is asked again.

Choosing is a compare-and-swap and a destination claims once, so a move
driven twice (by two conductors, or one that was merely slow) still goes
one way. A bounded number of moves is driven per pass.

Builds too: a server still ``scheduling`` on no host longer than
``[conductor]build_stall_timeout`` (its request died with a conductor,
or was lost) is scheduled again. The placement is a compare-and-swap on
an instance not placed yet, so a build driven twice is placed once. (A
server placed on a host whose request to build was lost is that agent's
to build, see compute/build_recovery.py.)

Unshelves likewise (the same timeout): a server still ``unshelving``
that is shelved, or offloaded and on no host, is driven again
(compute/shelve.py resumes one placed on a host).
"""

import datetime
from typing import Any

from oslo_config import cfg
from oslo_log import log as logging

from lite_common import context as lite_context
from lite_common import db as lite_db
from lite_common.context import RequestContext
from nova_lite.compute import rpcapi as compute_rpcapi
from nova_lite.conductor.build import Builder
from nova_lite.conductor.evacuate import Evacuator
from nova_lite.conductor.migrate import Migrator
from nova_lite.conductor.migrate import load_move
from nova_lite.conductor.unshelve import Unshelver
from nova_lite.db import instances as instance_db
from nova_lite.db import migrations as migration_db

LOG = logging.getLogger(__name__)
# Moves driven again per pass (the rest wait for the next pass).
BATCH = 50


class StallRecovery:
    def __init__(
        self,
        conf: cfg.ConfigOpts,
        evacuator: Evacuator,
        migrator: Migrator,
        builder: Builder,
        unshelver: Unshelver,
    ) -> None:
        self.conf = conf
        self.evacuator = evacuator
        self.migrator = migrator
        self.builder = builder
        self.unshelver = unshelver
        self.compute_rpcapi = compute_rpcapi.ComputeAPI(conf)

    def run(self) -> int:
        """One pass; how many moves and builds were driven again."""
        context = lite_context.get_admin_context()
        return (
            self._moves(context)
            + self._builds(context)
            + self._unshelves(context)
        )

    def _builds(self, context: RequestContext) -> int:
        timeout = self.conf.conductor.build_stall_timeout
        horizon = lite_db.utcnow() - datetime.timedelta(seconds=timeout)
        stalled = instance_db.stalled_builds(context, horizon, BATCH)
        for uuid in stalled:
            LOG.warning(
                'Instance %s has waited to be scheduled for over '
                '%s s (its build request was lost); scheduling it '
                'again',
                uuid,
                timeout,
                instance_uuid=uuid,
            )
            self.builder.schedule_and_build(context, uuid)
        return len(stalled)

    def _unshelves(self, context: RequestContext) -> int:
        timeout = self.conf.conductor.build_stall_timeout
        horizon = lite_db.utcnow() - datetime.timedelta(seconds=timeout)
        stalled = instance_db.stalled_unshelves(context, horizon, BATCH)
        for uuid in stalled:
            LOG.warning(
                'Instance %s has waited for its unshelve for over '
                '%s s (the request was lost); driving it again',
                uuid,
                timeout,
                instance_uuid=uuid,
            )
            self.unshelver.unshelve(context, uuid)
        return len(stalled)

    def _moves(self, context: RequestContext) -> int:
        horizon = lite_db.utcnow() - datetime.timedelta(
            seconds=self.conf.conductor.move_stall_timeout
        )
        stalled = migration_db.stalled_before_destination(
            context, horizon, BATCH
        )
        for row in stalled:
            LOG.warning(
                '%s %s has been %s for over %s s with no '
                'destination claimed; driving it again',
                row['migration_type'].capitalize(),
                row['uuid'],
                row['status'],
                self.conf.conductor.move_stall_timeout,
                instance_uuid=row['instance_uuid'],
            )
            self._drive(context, row)
        return len(stalled)

    def _drive(self, context: RequestContext, row: dict[str, Any]) -> None:
        if row['migration_type'] == 'evacuation':
            self.evacuator.evacuate(
                context,
                row['instance_uuid'],
                row['id'],
                row['dest_compute'],
                bool(row.get('forced')),
            )
        elif row['dest_node'] is None:
            self.migrator.migrate(
                context, row['instance_uuid'], row['id'], row['dest_compute']
            )
        else:
            instance, migration = load_move(
                context, row['instance_uuid'], row['id']
            )
            if instance is not None:
                self.compute_rpcapi.prep_resize(
                    context, instance, migration, row['dest_compute']
                )
