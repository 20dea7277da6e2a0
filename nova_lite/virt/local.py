"""The local driver: every instance has a real disk file.

``<state_path>/instances/<uuid>/disk`` holds a small header naming the
instance and is sized (sparsely) to the flavor's root disk, so that an
operator can see exactly which instances a host holds and data loss is
observable.
"""

import json
import os
from pathlib import Path
import shutil
from typing import Any

from oslo_log import log as logging

from nova_lite import exception
from nova_lite.virt import fake
from nova_lite.virt import power_state

LOG = logging.getLogger(__name__)


class LocalDriver(fake.FakeDriver):
    hypervisor_type = 'local'

    @property
    def instances_path(self) -> Path:
        return Path(self.state_path) / 'instances'

    def disk_path(self, uuid: str) -> Path:
        return self.instances_path / uuid / 'disk'

    def init_host(self) -> None:
        try:
            self.instances_path.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise exception.ConfigError(
                reason=f'cannot create {self.instances_path}: '
                f'{exc.strerror}; check state_path and its permissions')

    def list_instance_uuids(self) -> list[str]:
        try:
            return sorted(p.name for p in self.instances_path.iterdir()
                          if (p / 'disk').exists())
        except FileNotFoundError:
            return []

    def spawn(self, instance: Any) -> None:
        self.wait_spawn_seconds()
        path = self.disk_path(instance.uuid)
        path.parent.mkdir(parents=True, exist_ok=True)
        header = json.dumps({'instance': instance.uuid,
                             'image': instance.image_ref}).encode()
        with open(path, 'wb') as disk:
            disk.write(header)
            disk.truncate(max(len(header), instance.root_gb * 1024 ** 3))
            disk.flush()
            os.fsync(disk.fileno())
        LOG.info('Created disk %s', path, instance=instance)

    def destroy(self, instance: Any, destroy_disks: bool = True) -> None:
        if destroy_disks:
            shutil.rmtree(self.instances_path / instance.uuid,
                          ignore_errors=True)
            LOG.info('Deleted the disk of the instance', instance=instance)

    def power_state(self, instance: Any) -> int:
        if self.disk_path(instance.uuid).exists():
            return power_state.RUNNING
        return power_state.NOSTATE
