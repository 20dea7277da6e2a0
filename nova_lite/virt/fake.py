"""The fake driver: instances live in memory only."""

import json
import os
from pathlib import Path
import threading
import time
from typing import Any

from nova_lite import exception
from nova_lite.common import power_state
from nova_lite.virt import diagnostics
from nova_lite.virt import driver
from nova_lite.virt import host_info

#: How often a held build checks its hold file.
HOLD_POLL_SECONDS = 0.2


class FakeDriver(driver.ComputeDriver):
    hypervisor_type = 'fake'

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._instances: dict[str, int] = {}
        # Instances moved away and kept aside until confirm or revert.
        self._moved_away: dict[str, int] = {}
        #: Rescued guests: uuid -> the rescue image.
        self.rescued: dict[str, str] = {}
        self._lock = threading.Lock()

    @property
    def nodename(self) -> str:
        return self.conf.virt_resources.hypervisor_hostname or self.host

    def get_available_nodes(self) -> list[str]:
        return [self.nodename]

    def get_node_resources(self, nodename: str) -> driver.NodeResources:
        res = self.conf.virt_resources
        return driver.NodeResources(
            vcpus=res.vcpus,
            memory_mb=res.memory_mb,
            local_gb=res.local_gb,
            hypervisor_type=self.hypervisor_type,
            hypervisor_version=1000,
            hypervisor_hostname=nodename,
        )

    def get_host_uptime(self) -> str:
        return host_info.host_uptime()

    def get_instance_diagnostics(self, instance: Any) -> dict[str, Any]:
        return diagnostics.standard(
            instance,
            self.hypervisor_type,
            self.hypervisor_type,
            self.power_state(instance),
        )

    def list_instance_uuids(self) -> list[str]:
        with self._lock:
            return list(self._instances)

    def list_aside_uuids(self) -> list[str]:
        with self._lock:
            return list(self._moved_away)

    def destroy_aside(self, uuid: str) -> None:
        with self._lock:
            self._moved_away.pop(uuid, None)

    def wait_spawn_seconds(self) -> None:
        """Imitate a hypervisor's build time ([virt_resources]): the
        build lasts ``spawn_seconds``, or, with ``spawn_hold_file``, as
        long as that file exists and at most ``spawn_seconds``."""
        options = self.conf.virt_resources
        if not options.spawn_seconds:
            return
        if not options.spawn_hold_file:
            time.sleep(options.spawn_seconds)
            return
        deadline = time.monotonic() + options.spawn_seconds
        while time.monotonic() < deadline and os.path.exists(
            options.spawn_hold_file
        ):
            time.sleep(HOLD_POLL_SECONDS)

    def spawn(self, instance: Any, image_ref: str | None = None) -> None:
        self.wait_spawn_seconds()
        with self._lock:
            self._instances[instance.uuid] = power_state.RUNNING

    def destroy(self, instance: Any, destroy_disks: bool = True) -> None:
        with self._lock:
            self._instances.pop(instance.uuid, None)
            self.rescued.pop(instance.uuid, None)

    def snapshot(self, instance: Any, dest: Path) -> str:
        """A small raw image naming the guest and its image (the fake
        guest has no disk)."""
        with self._lock:
            if instance.uuid not in self._instances:
                raise exception.VirtDriverError(
                    reason=f'instance {instance.uuid} is not on this host'
                )
        fields = {'instance': instance.uuid, 'image': instance.image_ref}
        with open(dest, 'xb') as out:
            out.write(json.dumps(fields).encode())
        return 'raw'

    def get_console_output(self, instance: Any) -> str:
        """Three fixed lines, as upstream's fake driver answers."""
        with self._lock:
            if instance.uuid not in self._instances:
                raise exception.ConsoleNotAvailable()
        return 'FAKE CONSOLE OUTPUT\nANOTHER\nLAST LINE'

    def power_state(self, instance: Any) -> int:
        with self._lock:
            return self._instances.get(instance.uuid, power_state.NOSTATE)

    def _set_power(self, instance: Any, state: int) -> None:
        with self._lock:
            if instance.uuid not in self._instances:
                raise exception.VirtDriverError(
                    reason=f'instance {instance.uuid} is not on this host'
                )
            self._instances[instance.uuid] = state

    def power_off(self, instance: Any) -> None:
        self._set_power(instance, power_state.SHUTDOWN)

    def power_update_event(self, instance: Any, target: str) -> None:
        """As upstream's fake driver: the guest is as the event says."""
        self._set_power(
            instance,
            power_state.RUNNING
            if target == 'POWER_ON'
            else power_state.SHUTDOWN,
        )

    def power_on(self, instance: Any) -> None:
        self._set_power(instance, power_state.RUNNING)

    def reboot(self, instance: Any, reboot_type: str) -> None:
        self._set_power(instance, power_state.RUNNING)

    def pause(self, instance: Any) -> None:
        self._set_power(instance, power_state.PAUSED)

    def unpause(self, instance: Any) -> None:
        self._set_power(instance, power_state.RUNNING)

    def suspend(self, instance: Any) -> None:
        self._set_power(instance, power_state.SUSPENDED)

    def resume(self, instance: Any) -> None:
        self._set_power(instance, power_state.RUNNING)

    def rescue(self, instance: Any, image_ref: str, password: str) -> None:
        """The guest runs its rescue image (which one: :attr:`rescued`)."""
        self._set_power(instance, power_state.RUNNING)
        with self._lock:
            self.rescued[instance.uuid] = image_ref

    def unrescue(self, instance: Any) -> None:
        self._set_power(instance, power_state.RUNNING)
        with self._lock:
            self.rescued.pop(instance.uuid, None)

    def migrate_disk_and_power_off(
        self, instance: Any, dest_host: str, migrate_data: dict[str, Any]
    ) -> None:
        with self._lock:
            if instance.uuid in self._instances:
                self._moved_away[instance.uuid] = self._instances.pop(
                    instance.uuid
                )

    def finish_migration(
        self, instance: Any, root_gb: int, power_on: bool
    ) -> None:
        with self._lock:
            self._instances[instance.uuid] = (
                power_state.RUNNING if power_on else power_state.SHUTDOWN
            )

    def confirm_migration(self, instance: Any) -> None:
        with self._lock:
            self._moved_away.pop(instance.uuid, None)

    def finish_revert_migration(self, instance: Any, power_on: bool) -> None:
        with self._lock:
            self._moved_away.pop(instance.uuid, None)
            self._instances[instance.uuid] = (
                power_state.RUNNING if power_on else power_state.SHUTDOWN
            )

    def abort_migration(self, instance: Any) -> None:
        with self._lock:
            if instance.uuid in self._moved_away:
                self._instances.setdefault(
                    instance.uuid, self._moved_away.pop(instance.uuid)
                )
