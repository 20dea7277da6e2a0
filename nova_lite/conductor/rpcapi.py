"""Client side of the conductor RPC API (topic ``conductor``).

1.0: build_instances, object_class_action_versions, object_action,
     object_backport_versions
1.1: ping (a compute agent waits for the conductor at start-up)
1.2: evacuate_instance
1.3: migrate_server (cold migration and resize)
1.4: unshelve_instance
"""

from typing import Any

from oslo_config import cfg
from oslo_log import log as logging
import oslo_messaging as messaging

from lite_common import db_retry
from lite_common import rpc
from lite_common.context import RequestContext
from nova_lite import exception
from nova_lite.objects import base as objects_base

LOG = logging.getLogger(__name__)

TOPIC = 'conductor'
VERSION = '1.4'
# One attempt of wait_until_ready: short, so that the log says soon that
# the agent is waiting, and a conductor that starts later is found at once.
PING_TIMEOUT = 5


def _client(conf: cfg.ConfigOpts) -> messaging.RPCClient:
    return rpc.get_client(
        conf,
        messaging.Target(topic=TOPIC, version=VERSION),
        serializer=rpc.get_serializer(objects_base.NovaLiteObjectSerializer),
        expected=(exception.NovaLiteException,),
    )


class ConductorAPI:
    """What the API and the computes ask of the conductor."""

    def __init__(self, conf: cfg.ConfigOpts) -> None:
        self.client = _client(conf)

    def build_instances(
        self, context: RequestContext, instance_uuids: list[str]
    ) -> None:
        self.client.prepare().cast(
            context, 'build_instances', instance_uuids=instance_uuids
        )

    def evacuate_instance(
        self,
        context: RequestContext,
        instance_uuid: str,
        migration_id: int,
        host: str | None,
        force: bool,
    ) -> None:
        self.client.prepare(version='1.2').cast(
            context,
            'evacuate_instance',
            instance_uuid=instance_uuid,
            migration_id=migration_id,
            host=host,
            force=force,
        )

    def migrate_server(
        self,
        context: RequestContext,
        instance_uuid: str,
        migration_id: int,
        host: str | None,
    ) -> None:
        self.client.prepare(version='1.3').cast(
            context,
            'migrate_server',
            instance_uuid=instance_uuid,
            migration_id=migration_id,
            host=host,
        )

    def unshelve_instance(
        self, context: RequestContext, instance_uuid: str
    ) -> None:
        self.client.prepare(version='1.4').cast(
            context, 'unshelve_instance', instance_uuid=instance_uuid
        )

    def ping(self, context: RequestContext, timeout: float) -> None:
        """One round trip to any conductor; MessagingTimeout if none."""
        self.client.prepare(version='1.1', timeout=timeout).call(
            context, 'ping', arg='ping'
        )

    def wait_until_ready(self, context: RequestContext) -> None:
        """Block until a conductor answers, logging while it does not.

        A compute agent has no database: until a conductor runs it can
        do nothing, so it waits (a signal still stops the agent) rather
        than dying on the first timed-out object call.
        """
        attempt = 0
        timeout = PING_TIMEOUT
        while True:
            try:
                self.ping(context, timeout=timeout)
            except messaging.MessagingTimeout:
                attempt += 1
                LOG.warning(
                    'No nova-lite-conductor answered within %s s '
                    '(attempt %d). Is it running and on the same '
                    'transport_url? Retrying.',
                    timeout,
                    attempt,
                )
                continue
            if attempt:
                LOG.info(
                    'nova-lite-conductor answered after %d failed attempt(s)',
                    attempt,
                )
            return


class ObjectIndirectionAPI:
    """Sends ``@remotable`` calls of a compute agent to the conductor.

    A conductor that cannot reach its database answers
    DatabaseUnavailable; when it stored nothing, the call is sent again
    (:func:`lite_common.db_retry.until_available`): the agent's flows
    wait for the database as the conductor's do, instead of failing an
    instance that did nothing wrong.
    """

    def __init__(self, conf: cfg.ConfigOpts) -> None:
        self.client = _client(conf)

    def object_class_action_versions(
        self,
        context: RequestContext,
        objname: str,
        objmethod: str,
        object_versions: Any,
        args: Any,
        kwargs: Any,
    ) -> Any:
        return db_retry.until_available(
            f'{objname}.{objmethod}',
            lambda: self.client.prepare().call(
                context,
                'object_class_action_versions',
                objname=objname,
                objmethod=objmethod,
                object_versions=object_versions,
                args=args,
                kwargs=kwargs,
            ),
        )

    def object_action(
        self,
        context: RequestContext,
        objinst: Any,
        objmethod: str,
        args: Any,
        kwargs: Any,
    ) -> Any:
        return db_retry.until_available(
            f'{objinst.obj_name()}.{objmethod}',
            lambda: self.client.prepare().call(
                context,
                'object_action',
                objinst=objinst,
                objmethod=objmethod,
                args=args,
                kwargs=kwargs,
            ),
        )

    def object_backport_versions(
        self, context: RequestContext, objinst: Any, object_versions: Any
    ) -> Any:
        return self.client.prepare().call(
            context,
            'object_backport_versions',
            objinst=objinst,
            object_versions=object_versions,
        )
