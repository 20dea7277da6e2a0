"""The fake standard interfaces (``fake`` of bios, boot, console,
firmware, inspect, raid, rescue, storage and vendor): no hardware, every
call succeeds.

Their manual clean steps (priority 0, as upstream's) note their name in
``node.driver_internal_info['fake_steps_run']`` like the other fake
steps (:mod:`ironic_lite.drivers.fake`):

- bios.apply_configuration (args ``settings``, required),
  bios.factory_reset, bios.cache_bios_settings
- firmware.update (args ``settings``, required)

bios.apply_configuration and bios.factory_reset are deploy steps too
(priority 0: run when a deploy template or the request asks), as the
real BIOS interfaces' are (upstream's fake has no deploy steps but
deploy.deploy).

The fake RAID interface has no clean steps, as upstream's.
"""

from typing import Any

from oslo_log import log as logging

from ironic_lite import exception
from ironic_lite.common import states
from ironic_lite.db import bios as db_bios
from ironic_lite.drivers import base
from ironic_lite.drivers import noop
from ironic_lite.drivers import standard
from ironic_lite.drivers import vendor
from ironic_lite.drivers.fake import _note_step

LOG = logging.getLogger(__name__)
_SETTINGS = {'type': 'array', 'required': True}


class FakeBIOS(standard.BIOSInterface):
    """Settings kept in the database only (as upstream's fake): applying
    makes the list given the node's settings, a factory reset leaves
    none."""

    @base.clean_step(
        priority=0,
        argsinfo={
            'settings': {
                **_SETTINGS,
                'description': 'BIOS settings: a list of '
                '{"name": ..., "value": ...} objects.',
            }
        },
    )
    @base.deploy_step(
        priority=0,
        argsinfo={
            'settings': {
                **_SETTINGS,
                'description': 'BIOS settings: a list of '
                '{"name": ..., "value": ...} objects.',
            }
        },
    )
    def apply_configuration(
        self, task: base.TaskLike, settings: list[dict[str, Any]]
    ) -> None:
        bad = [
            s
            for s in settings
            if not isinstance(s, dict)
            or not isinstance(s.get('name'), str)
            or not s['name']
        ]
        if bad:
            raise exception.InvalidParameterValue(
                err='Each BIOS setting needs a "name" (and a "value"): '
                f'{bad[0]!r}'
            )
        _note_step(task, 'apply_configuration')
        counts = db_bios.replace_settings(task.context, task.node.id, settings)
        LOG.info('BIOS settings of node %s: %s', task.node.uuid, counts)

    @base.clean_step(priority=0)
    @base.deploy_step(priority=0)
    def factory_reset(self, task: base.TaskLike) -> None:
        _note_step(task, 'factory_reset')
        db_bios.replace_settings(task.context, task.node.id, [])

    @base.clean_step(priority=0)
    def cache_bios_settings(self, task: base.TaskLike) -> None:
        """Nothing to read (as upstream's fake); noted only when run as
        a clean step (the conductor also calls it when it caches the
        node's hardware: :mod:`ironic_lite.conductor.node_cache`)."""
        if (task.node.clean_step or {}).get('step') == 'cache_bios_settings':
            _note_step(task, 'cache_bios_settings')


class FakeBoot(standard.BootInterface):
    def prepare_ramdisk(
        self, task: base.TaskLike, ramdisk_params: dict[str, Any]
    ) -> None:
        pass

    def clean_up_ramdisk(self, task: base.TaskLike) -> None:
        pass

    def prepare_instance(self, task: base.TaskLike) -> None:
        pass

    def clean_up_instance(self, task: base.TaskLike) -> None:
        pass


class FakeConsole(standard.ConsoleInterface):
    """A console that is nowhere: started and stopped, with no
    connection information (as upstream's fake)."""

    def start_console(self, task: base.TaskLike) -> None:
        pass

    def stop_console(self, task: base.TaskLike) -> None:
        pass

    def get_console(self, task: base.TaskLike) -> dict[str, Any]:
        return {}


class FakeFirmware(standard.FirmwareInterface):
    @base.clean_step(
        priority=0,
        argsinfo={
            'settings': {
                **_SETTINGS,
                'description': 'Firmware components: a list of '
                '{"component": ..., "url": ...} objects.',
            }
        },
    )
    def update(
        self, task: base.TaskLike, settings: list[dict[str, Any]]
    ) -> None:
        _note_step(task, 'update')

    def cache_firmware_components(self, task: base.TaskLike) -> None:
        pass


class FakeInspect(standard.InspectInterface):
    """Inspects at once (as upstream's), or, with
    ``[fake]asynchronous_inspection``, starts an inspection that only an
    abort or the inspect wait timeout ends."""

    def inspect_hardware(self, task: base.TaskLike) -> str | None:
        if self.conf.fake.asynchronous_inspection:
            return states.INSPECTWAIT
        return None

    def abort(self, task: base.TaskLike) -> None:
        LOG.info('Node %s: fake inspection aborted', task.node.uuid)


class FakeRAID(standard.RAIDInterface):
    """As upstream's fake RAID: the two calls succeed, and (unlike the
    agent and redfish RAID interfaces) neither is a clean step."""

    def create_configuration(
        self,
        task: base.TaskLike,
        create_root_volume: bool = True,
        create_nonroot_volumes: bool = True,
    ) -> None:
        _note_step(task, 'create_configuration')

    def delete_configuration(self, task: base.TaskLike) -> None:
        _note_step(task, 'delete_configuration')


class FakeRescue(standard.RescueInterface):
    def rescue(self, task: base.TaskLike) -> str | None:
        return None

    def unrescue(self, task: base.TaskLike) -> None:
        pass


class FakeStorage(noop.NoopStorage):
    """Volumes attached nowhere; the image is written as usual (what
    ``noop`` does, under upstream's other name)."""


class FakeVendor(standard.VendorInterface):
    """Upstream's fake vendor methods (its ``fake`` vendor interface):
    each answers whether ``bar`` is its word. Its driver_info properties
    (B1, B2) are upstream's too, listed only: nothing reads them."""

    def get_properties(self) -> dict[str, str]:
        return {
            'B1': 'B1 description. Required.',
            'B2': 'B2 description. Required.',
        }

    def validate_method(
        self, task: base.TaskLike, method: str, args: dict[str, Any]
    ) -> None:
        if method != 'log_passthrough' and not args.get('bar'):
            raise exception.MissingParameterValue(
                err=f"Parameter 'bar' not passed to method '{method}'."
            )

    @vendor.passthru(['POST'], description='Test if the value of bar is kazoo')
    def second_method(
        self, task: base.TaskLike, http_method: str, bar: Any
    ) -> bool:
        return bool(bar == 'kazoo')

    @vendor.passthru(
        ['POST'],
        async_call=False,
        description='Test if the value of bar is meow',
    )
    def third_method_sync(
        self, task: base.TaskLike, http_method: str, bar: Any
    ) -> bool:
        return bool(bar == 'meow')

    @vendor.passthru(
        ['POST'],
        require_exclusive_lock=False,
        description='Test if the value of bar is woof',
    )
    def fourth_method_shared_lock(
        self, task: base.TaskLike, http_method: str, bar: Any
    ) -> bool:
        return bool(bar == 'woof')

    @base.service_step(requires_ramdisk=False)
    @vendor.passthru(['POST'], description='Test pass-through to wait.')
    def log_passthrough(
        self,
        task: base.TaskLike,
        http_method: str | None = None,
        **kwargs: Any,
    ) -> None:
        LOG.info(
            'Vendor method log_passthrough of node %s called with %s',
            task.node.uuid,
            sorted(kwargs),
        )

    @base.service_step()
    def trigger_servicewait(self, task: base.TaskLike) -> str:
        """Upstream's fake service step that never finishes by itself:
        the node waits in "service wait" for an abort or the timeout."""
        return states.SERVICEWAIT
