"""Client side of the compute RPC API (topic ``compute``, server = host).

1.0: build_and_run_instance, terminate_instance
1.1: rebuild_instance (the destination of an evacuation)
1.2: cold migration and resize: prep_resize, resize_instance,
     finish_resize, confirm_resize, revert_resize, finish_revert_resize
1.3: stop_instance, start_instance, reboot_instance
1.4: soft_delete_instance, restore_instance (deferred delete)
1.5: get_host_uptime (a call)
1.6: get_instance_diagnostics (a call)
1.7: pause_instance, unpause_instance, suspend_instance, resume_instance,
     shelve_instance, shelve_offload_instance, unshelve_instance,
     rebuild_server (the user's rebuild on the server's host)
1.8: power_update (the power-update external event, API 2.76)
1.9: rescue_instance, unrescue_instance
1.10: get_console_output (a call)
1.11: snapshot_instance (createImage, createBackup)
"""

from typing import Any
from typing import cast

from oslo_config import cfg
import oslo_messaging as messaging

from lite_common import rpc
from lite_common.context import RequestContext
from nova_lite import exception
from nova_lite.objects import base as objects_base
from nova_lite.objects.instance import Instance
from nova_lite.objects.migration import Migration

TOPIC = 'compute'
VERSION = '1.11'


class ComputeAPI:
    def _cast(
        self,
        version: str,
        context: RequestContext,
        method: str,
        host: str,
        **kwargs: Any,
    ) -> None:
        """Cast ``method`` (added in ``version``) to ``host``."""
        self.client.prepare(server=host, version=version).cast(
            context, method, **kwargs
        )

    def __init__(self, conf: cfg.ConfigOpts) -> None:
        self.client = rpc.get_client(
            conf,
            messaging.Target(topic=TOPIC, version=VERSION),
            serializer=rpc.get_serializer(
                objects_base.NovaLiteObjectSerializer
            ),
            # What the agent's host information calls declare.
            expected=(NotImplementedError, exception.NovaLiteException),
        )

    def build_and_run_instance(
        self, context: RequestContext, instance: Instance, host: str
    ) -> None:
        self.client.prepare(server=host).cast(
            context, 'build_and_run_instance', instance=instance
        )

    def terminate_instance(
        self, context: RequestContext, instance: Instance, host: str
    ) -> None:
        self.client.prepare(server=host).cast(
            context, 'terminate_instance', instance=instance
        )

    def rebuild_instance(
        self,
        context: RequestContext,
        instance: Instance,
        migration: Migration,
        host: str,
    ) -> None:
        self.client.prepare(server=host, version='1.1').cast(
            context, 'rebuild_instance', instance=instance, migration=migration
        )

    def prep_resize(
        self,
        context: RequestContext,
        instance: Instance,
        migration: Migration,
        host: str,
    ) -> None:
        """To the destination: claim, then ask the source to send."""
        self._cast(
            '1.2',
            context,
            'prep_resize',
            host,
            instance=instance,
            migration=migration,
        )

    def resize_instance(
        self,
        context: RequestContext,
        instance: Instance,
        migration: Migration,
        migrate_data: dict[str, Any],
        host: str,
    ) -> None:
        """To the source: send the disks, then ask the destination to
        finish."""
        self._cast(
            '1.2',
            context,
            'resize_instance',
            host,
            instance=instance,
            migration=migration,
            migrate_data=migrate_data,
        )

    def finish_resize(
        self,
        context: RequestContext,
        instance: Instance,
        migration: Migration,
        host: str,
    ) -> None:
        self._cast(
            '1.2',
            context,
            'finish_resize',
            host,
            instance=instance,
            migration=migration,
        )

    def confirm_resize(
        self,
        context: RequestContext,
        instance: Instance,
        migration: Migration,
        host: str,
    ) -> None:
        """To the source: delete the copy kept aside."""
        self._cast(
            '1.2',
            context,
            'confirm_resize',
            host,
            instance=instance,
            migration=migration,
        )

    def revert_resize(
        self,
        context: RequestContext,
        instance: Instance,
        migration: Migration,
        host: str,
    ) -> None:
        """To the destination: destroy its copy, then hand back."""
        self._cast(
            '1.2',
            context,
            'revert_resize',
            host,
            instance=instance,
            migration=migration,
        )

    def finish_revert_resize(
        self,
        context: RequestContext,
        instance: Instance,
        migration: Migration,
        host: str,
    ) -> None:
        self._cast(
            '1.2',
            context,
            'finish_revert_resize',
            host,
            instance=instance,
            migration=migration,
        )

    def stop_instance(
        self, context: RequestContext, instance: Instance, host: str
    ) -> None:
        self._cast('1.3', context, 'stop_instance', host, instance=instance)

    def start_instance(
        self, context: RequestContext, instance: Instance, host: str
    ) -> None:
        self._cast('1.3', context, 'start_instance', host, instance=instance)

    def reboot_instance(
        self,
        context: RequestContext,
        instance: Instance,
        reboot_type: str,
        host: str,
    ) -> None:
        self._cast(
            '1.3',
            context,
            'reboot_instance',
            host,
            instance=instance,
            reboot_type=reboot_type,
        )

    def soft_delete_instance(
        self, context: RequestContext, instance: Instance, host: str
    ) -> None:
        """Power the guest off and mark the server SOFT_DELETED."""
        self._cast(
            '1.4', context, 'soft_delete_instance', host, instance=instance
        )

    def restore_instance(
        self, context: RequestContext, instance: Instance, host: str
    ) -> None:
        """Power the guest on and mark the server ACTIVE again."""
        self._cast('1.4', context, 'restore_instance', host, instance=instance)

    def get_host_uptime(self, context: RequestContext, host: str) -> str:
        """What ``uptime`` prints on ``host`` (NotImplementedError when
        its driver cannot tell)."""
        return cast(
            str,
            self.client.prepare(server=host, version='1.5').call(
                context, 'get_host_uptime'
            ),
        )

    def get_instance_diagnostics(
        self, context: RequestContext, instance: Instance, host: str
    ) -> dict[str, Any]:
        """The guest's diagnostics (standard form) from its host."""
        return cast(
            'dict[str, Any]',
            self.client.prepare(server=host, version='1.6').call(
                context, 'get_instance_diagnostics', instance=instance
            ),
        )

    def get_console_output(
        self,
        context: RequestContext,
        instance: Instance,
        tail_length: int | None,
        host: str,
    ) -> str:
        """The guest's console log (its last ``tail_length`` lines; all
        when None) from its host."""
        return cast(
            str,
            self.client.prepare(server=host, version='1.10').call(
                context,
                'get_console_output',
                instance=instance,
                tail_length=tail_length,
            ),
        )

    def pause_instance(
        self, context: RequestContext, instance: Instance, host: str
    ) -> None:
        self._cast('1.7', context, 'pause_instance', host, instance=instance)

    def unpause_instance(
        self, context: RequestContext, instance: Instance, host: str
    ) -> None:
        self._cast('1.7', context, 'unpause_instance', host, instance=instance)

    def suspend_instance(
        self, context: RequestContext, instance: Instance, host: str
    ) -> None:
        self._cast('1.7', context, 'suspend_instance', host, instance=instance)

    def resume_instance(
        self, context: RequestContext, instance: Instance, host: str
    ) -> None:
        self._cast('1.7', context, 'resume_instance', host, instance=instance)

    def shelve_instance(
        self, context: RequestContext, instance: Instance, host: str
    ) -> None:
        self._cast('1.7', context, 'shelve_instance', host, instance=instance)

    def shelve_offload_instance(
        self, context: RequestContext, instance: Instance, host: str
    ) -> None:
        self._cast(
            '1.7', context, 'shelve_offload_instance', host, instance=instance
        )

    def unshelve_instance(
        self, context: RequestContext, instance: Instance, host: str
    ) -> None:
        """To the host the conductor placed an offloaded server on."""
        self._cast(
            '1.7', context, 'unshelve_instance', host, instance=instance
        )

    def rebuild_server(
        self, context: RequestContext, instance: Instance, host: str
    ) -> None:
        """To the server's host: its rebuild with the image recorded."""
        self._cast('1.7', context, 'rebuild_server', host, instance=instance)

    def snapshot_instance(
        self, context: RequestContext, instance: Instance, host: str
    ) -> None:
        """To the server's host: write and upload the snapshot or backup
        named in its system metadata."""
        self._cast(
            '1.11', context, 'snapshot_instance', host, instance=instance
        )

    def power_update(
        self,
        context: RequestContext,
        instance: Instance,
        target: str,
        host: str,
    ) -> None:
        self._cast(
            '1.8',
            context,
            'power_update',
            host,
            instance=instance,
            target_power_state=target,
        )

    def rescue_instance(
        self,
        context: RequestContext,
        instance: Instance,
        password: str,
        image_ref: str | None,
        host: str,
    ) -> None:
        """Boot the guest from a rescue image (``image_ref``, default:
        its own image) with ``password``; the password travels only in
        this message, never stored."""
        self._cast(
            '1.9',
            context,
            'rescue_instance',
            host,
            instance=instance,
            rescue_password=password,
            rescue_image_ref=image_ref,
        )

    def unrescue_instance(
        self, context: RequestContext, instance: Instance, host: str
    ) -> None:
        self._cast(
            '1.9', context, 'unrescue_instance', host, instance=instance
        )
