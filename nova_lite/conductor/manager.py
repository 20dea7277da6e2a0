"""The conductor's RPC endpoint: thin; the flows live in their modules."""

from typing import Any

from oslo_config import cfg
import oslo_messaging as messaging

from lite_common import rpc
from lite_common.context import RequestContext
from nova_lite import exception
from nova_lite.conductor import build
from nova_lite.conductor import evacuate
from nova_lite.conductor import migrate
from nova_lite.conductor import object_actions
from nova_lite.conductor import recovery
from nova_lite.conductor import unshelve
from nova_lite.objects import instance_action

EXPECTED = (exception.NovaLiteException,)


class ConductorManager:
    target = messaging.Target(version='1.4')

    def __init__(self, conf: cfg.ConfigOpts) -> None:
        self.conf = conf
        self.builder = build.Builder(conf)
        self.evacuator = evacuate.Evacuator(conf)
        self.migrator = migrate.Migrator(conf)
        self.unshelver = unshelve.Unshelver(conf)
        self.recovery = recovery.StallRecovery(
            conf, self.evacuator, self.migrator, self.builder, self.unshelver
        )

    def _event(
        self, context: RequestContext, instance_uuid: str, name: str
    ) -> Any:
        """The block as an event of the request's instance action."""
        return instance_action.recorded(
            context, instance_uuid, f'conductor_{name}', self.conf.host
        )

    def migrate_server(
        self,
        context: RequestContext,
        instance_uuid: str,
        migration_id: int,
        host: str | None,
    ) -> None:
        with self._event(context, instance_uuid, 'migrate_server'):
            self.migrator.migrate(context, instance_uuid, migration_id, host)

    def evacuate_instance(
        self,
        context: RequestContext,
        instance_uuid: str,
        migration_id: int,
        host: str | None,
        force: bool,
    ) -> None:
        with self._event(context, instance_uuid, 'rebuild_server'):
            self.evacuator.evacuate(
                context, instance_uuid, migration_id, host, force
            )

    def unshelve_instance(
        self, context: RequestContext, instance_uuid: str
    ) -> None:
        with self._event(
            context, instance_uuid, 'unshelve_instance'
        ) as outcome:
            outcome.error = self.unshelver.unshelve(context, instance_uuid)

    def ping(self, context: RequestContext, arg: Any) -> Any:
        return arg

    def build_instances(
        self, context: RequestContext, instance_uuids: list[str]
    ) -> None:
        for uuid in instance_uuids:
            with self._event(
                context, uuid, 'schedule_and_build_instances'
            ) as outcome:
                outcome.error = self.builder.schedule_and_build(context, uuid)

    @rpc.expected_exceptions(*EXPECTED)
    def object_class_action_versions(
        self,
        context: RequestContext,
        objname: str,
        objmethod: str,
        object_versions: Any,
        args: Any,
        kwargs: Any,
    ) -> Any:
        return object_actions.class_action(
            context, objname, objmethod, object_versions, args, kwargs
        )

    @rpc.expected_exceptions(*EXPECTED)
    def object_action(
        self,
        context: RequestContext,
        objinst: Any,
        objmethod: str,
        args: Any,
        kwargs: Any,
    ) -> Any:
        return object_actions.instance_action(
            context, objinst, objmethod, args, kwargs
        )

    def object_backport_versions(
        self, context: RequestContext, objinst: Any, object_versions: Any
    ) -> Any:
        return objinst.obj_to_primitive(
            target_version=object_versions[objinst.obj_name()],
            version_manifest=object_versions,
        )
