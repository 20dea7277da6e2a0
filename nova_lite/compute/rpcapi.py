"""Client side of the compute RPC API (topic ``compute``, server = host).

1.0: build_and_run_instance, terminate_instance
1.1: rebuild_instance (the destination of an evacuation)
"""

from typing import Any

from oslo_config import cfg
import oslo_messaging as messaging

from lite_common import rpc
from nova_lite.objects import base as objects_base

TOPIC = 'compute'
VERSION = '1.1'


class ComputeAPI:
    def __init__(self, conf: cfg.ConfigOpts) -> None:
        self.client = rpc.get_client(
            conf, messaging.Target(topic=TOPIC, version=VERSION),
            serializer=rpc.get_serializer(
                objects_base.NovaLiteObjectSerializer))

    def build_and_run_instance(self, context: Any, instance: Any,
                               host: str) -> None:
        self.client.prepare(server=host).cast(
            context, 'build_and_run_instance', instance=instance)

    def terminate_instance(self, context: Any, instance: Any,
                           host: str) -> None:
        self.client.prepare(server=host).cast(
            context, 'terminate_instance', instance=instance)

    def rebuild_instance(self, context: Any, instance: Any, migration: Any,
                         host: str) -> None:
        self.client.prepare(server=host, version='1.1').cast(
            context, 'rebuild_instance', instance=instance,
            migration=migration)
