"""What the compute API does with accepted server external events
(upstream's ``compute.api.API.external_instance_event``).

Only ``power-update`` (2.76) acts here: ``POWER_ON`` records a
``start`` action and ``POWER_OFF`` a ``stop`` one, then the server's
compute agent takes the event (:mod:`nova_lite.common.power_update`);
another tag is logged and skipped, as upstream. Network and volume
events have nothing to wake here (no step waits for them).
"""

from typing import Any

from oslo_log import log as logging

from lite_common.context import RequestContext
from nova_lite.common import power_update
from nova_lite.compute import rpcapi as compute_rpcapi
from nova_lite.compute_api import power as power_api
from nova_lite.db import instance_actions as actions_db
from nova_lite.objects import instance as instance_obj

LOG = logging.getLogger(__name__)
Row = dict[str, Any]

#: power-update tag -> the instance action recorded for it
POWER_ACTIONS = {
    power_update.POWER_ON: 'start',
    power_update.POWER_OFF: 'stop',
}


class ExternalEvents:
    """Mixed into :class:`nova_lite.compute_api.moves.API` (``self.compute``
    is the compute RPC client)."""

    compute: compute_rpcapi.ComputeAPI

    def external_events(
        self, ctx: RequestContext, accepted: list[tuple[Row, Row]]
    ) -> None:
        """``accepted``: (event, its server with a host) pairs."""
        for event, inst in accepted:
            if event['name'] == 'power-update':
                self._power_update(ctx, inst, event.get('tag'))

    def _power_update(
        self, ctx: RequestContext, inst: Row, tag: str | None
    ) -> None:
        if tag is None or tag not in POWER_ACTIONS:
            LOG.warning(
                'Invalid power state %s: the power-update event is skipped',
                tag,
                instance_uuid=inst['uuid'],
            )
            return
        action = POWER_ACTIONS[tag]
        actions_db.record(ctx, power_api.action_values(ctx, inst, action))
        instance = instance_obj.Instance.get_by_uuid(ctx, inst['uuid'])
        LOG.info(
            'Power update %s for the server on %s',
            tag,
            inst['host'],
            instance_uuid=inst['uuid'],
        )
        self.compute.power_update(ctx, instance, tag, inst['host'])
