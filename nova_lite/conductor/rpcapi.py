"""Client side of the conductor RPC API (topic ``conductor``).

1.0: build_instances, object_class_action_versions, object_action,
     object_backport_versions
"""

from typing import Any

from oslo_config import cfg
import oslo_messaging as messaging

from lite_common import rpc
from nova_lite.objects import base as objects_base

TOPIC = 'conductor'
VERSION = '1.0'


def _client(conf: cfg.ConfigOpts) -> messaging.RPCClient:
    return rpc.get_client(
        conf, messaging.Target(topic=TOPIC, version=VERSION),
        serializer=rpc.get_serializer(objects_base.NovaLiteObjectSerializer))


class ConductorAPI:
    """What the API and the computes ask of the conductor."""

    def __init__(self, conf: cfg.ConfigOpts) -> None:
        self.client = _client(conf)

    def build_instances(self, context: Any, instance_uuids: list[str]) -> None:
        self.client.prepare().cast(context, 'build_instances',
                                   instance_uuids=instance_uuids)


class ObjectIndirectionAPI:
    """Sends ``@remotable`` calls of a compute agent to the conductor."""

    def __init__(self, conf: cfg.ConfigOpts) -> None:
        self.client = _client(conf)

    def object_class_action_versions(self, context: Any, objname: str,
                                     objmethod: str, object_versions: Any,
                                     args: Any, kwargs: Any) -> Any:
        return self.client.prepare().call(
            context, 'object_class_action_versions', objname=objname,
            objmethod=objmethod, object_versions=object_versions,
            args=args, kwargs=kwargs)

    def object_action(self, context: Any, objinst: Any, objmethod: str,
                      args: Any, kwargs: Any) -> Any:
        return self.client.prepare().call(
            context, 'object_action', objinst=objinst, objmethod=objmethod,
            args=args, kwargs=kwargs)

    def object_backport_versions(self, context: Any, objinst: Any,
                                 object_versions: Any) -> Any:
        return self.client.prepare().call(
            context, 'object_backport_versions', objinst=objinst,
            object_versions=object_versions)
