"""The reclaim of soft-deleted servers (deferred delete).

With ``[DEFAULT]reclaim_instance_interval`` > 0, a DELETE keeps a
server SOFT_DELETED (see :mod:`nova_lite.compute_api.deferred_delete`).
Upstream's compute agents reclaim their own; here the agents have no
database, so the conductor does, in one transaction per pass: the
soft-deleted servers older than the interval, on hosts whose compute
service is up, are set to task ``deleting`` (a restore then is refused)
and each host is asked to delete them as a DELETE does
(``terminate_instance``). A request lost with its agent is finished at
the agent's start-up, which completes every ``deleting`` task it finds.
A server on a host that is down waits, as upstream, until it is up.
"""

import datetime
from typing import cast

from oslo_config import cfg
from oslo_log import log as logging

from lite_common import context as lite_context
from lite_common import db as lite_db
from lite_common.context import RequestContext
from nova_lite.compute import rpcapi as compute_rpcapi
from nova_lite.db import instances as instance_db
from nova_lite.db import services as service_db
from nova_lite.objects import instance as instance_obj
from nova_lite.objects import service as service_obj

LOG = logging.getLogger(__name__)
#: Servers reclaimed per pass (the rest wait for the next one).
BATCH = 100
#: The longest time between two passes, seconds.
MAX_PASS_INTERVAL = 60


def pass_interval(conf: cfg.ConfigOpts) -> int:
    """Seconds between passes: the reclaim interval, at most a minute."""
    return cast(
        int, max(1, min(conf.reclaim_instance_interval, MAX_PASS_INTERVAL))
    )


class Reclaimer:
    def __init__(self, conf: cfg.ConfigOpts) -> None:
        self.conf = conf
        self.compute_rpcapi = compute_rpcapi.ComputeAPI(conf)

    def _hosts_up(self, context: RequestContext) -> list[str]:
        services = service_db.service_get_all(
            context, binary=service_obj.COMPUTE_BINARY
        )
        return sorted(
            row['host']
            for row in services
            if service_obj.is_up(row, self.conf.service_down_time)
        )

    def run(self) -> int:
        """One pass; returns how many servers it asked to delete."""
        interval = self.conf.reclaim_instance_interval
        if interval <= 0:
            return 0
        context = lite_context.get_admin_context()
        older_than = lite_db.utcnow() - datetime.timedelta(seconds=interval)
        rows = instance_db.claim_reclaimable(
            context, older_than, self._hosts_up(context), BATCH
        )
        for row in rows:
            LOG.info(
                'Reclaiming the soft-deleted instance on %s (deleted at %s)',
                row['host'],
                row['deleted_at'],
                instance_uuid=row['uuid'],
            )
            self.compute_rpcapi.terminate_instance(
                context,
                instance_obj.Instance._from_db(context, row),
                row['host'],
            )
        return len(rows)
