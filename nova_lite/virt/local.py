"""The local driver: every instance has a real disk file.

``<state_path>/instances/<uuid>/disk`` holds a small header naming the
instance (its uuid, image and host name) and is sized (sparsely) to the
flavor's root disk, so that an operator can see exactly which instances
a host holds and data loss is observable.

Beside the disk, ``power.json`` records the guest's power state
(``running`` or ``shutdown``) and how many times it booted: stop, start
and reboot change it, and ``OS-EXT-STS:power_state`` reads it. A disk
without the file is a guest that runs and booted once.

``console.log`` beside the disk is the guest's console log: a line
per boot, power off, pause, suspend and resume (see
:mod:`nova_lite.virt.local_console`).

An unshelve makes the disk of its snapshot's data (raw, or qcow2
converted by ``qemu-img``): the disk is then the one shelved, byte for
byte, its header included.

A rescued guest has ``disk.rescue`` beside its disk (see
:mod:`nova_lite.virt.local_rescue`); its own disk is left untouched.

A cold migration or resize copies the disk (sparsely) into the
destination's instances directory, which the destination names in its
``migrate_data``: every agent of a deployment must see the others'
state paths (one machine, as in the all-in-one and the devstack-style
tests, or a shared mount). The source keeps its copy aside as
``<uuid>_resize`` until the move is confirmed or reverted.
"""

from collections.abc import Callable
from collections.abc import Iterator
import errno
import functools
import json
import os
from pathlib import Path
import shutil
import threading
from typing import Any
from typing import cast

from oslo_log import log as logging

from nova_lite import exception
from nova_lite.common import power_state
from nova_lite.virt import fake
from nova_lite.virt import local_console
from nova_lite.virt import local_rescue
from nova_lite.virt import local_snapshot

LOG = logging.getLogger(__name__)
RESIZE_SUFFIX = '_resize'
POWER_FILE = 'power.json'
RUNNING, SHUTDOWN = 'running', 'shutdown'
PAUSED, SUSPENDED = 'paused', 'suspended'
# The guest states of the power file and what the API reports for each.
_POWER_STATES = {
    RUNNING: power_state.RUNNING,
    SHUTDOWN: power_state.SHUTDOWN,
    PAUSED: power_state.PAUSED,
    SUSPENDED: power_state.SUSPENDED,
}
# What the console log says when the guest goes to each state (not a
# boot).
_CONSOLE_EVENTS = {
    SHUTDOWN: 'Powered off',
    PAUSED: 'Paused',
    SUSPENDED: 'Suspended',
    RUNNING: 'Resumed',
}
_CHUNK = 1024 * 1024


def _hostname(instance: Any) -> str | None:
    """The instance's host name, if the object carries one."""
    is_set = getattr(instance, 'obj_attr_is_set', None)
    if is_set is not None:
        return instance.hostname if is_set('hostname') else None
    return getattr(instance, 'hostname', None)


def _data_ranges(fd: int, size: int) -> Iterator[tuple[int, int]]:
    """(start, end) of the parts of a file that hold data: holes are
    skipped (SEEK_DATA / SEEK_HOLE), or the whole file where the file
    system cannot tell."""
    offset = 0
    while offset < size:
        try:
            start = os.lseek(fd, offset, os.SEEK_DATA)
        except OSError as exc:
            if exc.errno == errno.ENXIO:  # only a hole is left
                return
            if offset == 0:  # not supported here
                yield 0, size
                return
            raise
        end = os.lseek(fd, start, os.SEEK_HOLE)
        yield start, end
        offset = end


def sparse_copy(src: Path, dst: Path) -> None:
    """Copy a sparse file without filling its holes, atomically (a
    partial copy never appears under the final name)."""
    part = dst.with_name(dst.name + '.part')
    size = src.stat().st_size
    zeros = bytes(_CHUNK)
    with open(src, 'rb') as reader, open(part, 'wb') as writer:
        for start, end in _data_ranges(reader.fileno(), size):
            reader.seek(start)
            position = start
            while position < end:
                chunk = reader.read(min(_CHUNK, end - position))
                if not chunk:
                    break
                if chunk != zeros[: len(chunk)]:
                    writer.seek(position)
                    writer.write(chunk)
                position += len(chunk)
        writer.truncate(size)
        writer.flush()
        os.fsync(writer.fileno())
    os.replace(part, dst)


def _one_at_a_time(method: Callable[..., Any]) -> Callable[..., Any]:
    """Serialise the driver's work on one instance's files (a request
    repeated while the first one runs must not interleave renames)."""

    @functools.wraps(method)
    def locked(
        self: 'LocalDriver', instance: Any, *args: Any, **kwargs: Any
    ) -> Any:
        uuid = instance if isinstance(instance, str) else instance.uuid
        with self._files_lock:
            lock = self._instance_locks.setdefault(uuid, threading.Lock())
        with lock:
            return method(self, instance, *args, **kwargs)

    return locked


class LocalDriver(fake.FakeDriver):
    hypervisor_type = 'local'

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._files_lock = threading.Lock()
        # One lock per instance ever touched: a few bytes each.
        self._instance_locks: dict[str, threading.Lock] = {}

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
                f'{exc.strerror}; check state_path and its permissions'
            )

    def list_instance_uuids(self) -> list[str]:
        try:
            return sorted(
                p.name
                for p in self.instances_path.iterdir()
                if (p / 'disk').exists() and not p.name.endswith(RESIZE_SUFFIX)
            )
        except FileNotFoundError:
            return []

    def list_aside_uuids(self) -> list[str]:
        try:
            return sorted(
                p.name[: -len(RESIZE_SUFFIX)]
                for p in self.instances_path.iterdir()
                if p.name.endswith(RESIZE_SUFFIX)
            )
        except FileNotFoundError:
            return []

    @_one_at_a_time
    def destroy_aside(self, uuid: str) -> None:
        shutil.rmtree(self.aside_path(uuid), ignore_errors=True)

    @_one_at_a_time
    def spawn(self, instance: Any, image_ref: str | None = None) -> None:
        self.wait_spawn_seconds()
        path = self.disk_path(instance.uuid)
        path.parent.mkdir(parents=True, exist_ok=True)
        image = image_ref or instance.image_ref
        self._write_disk(path, instance, image)
        self._console(
            instance.uuid,
            *local_console.boot_lines(
                1, f'image {image}', _hostname(instance)
            ),
        )
        LOG.info('Created disk %s', path, instance=instance)

    takes_disk_images = True

    @_one_at_a_time
    def spawn_from_disk_image(
        self, instance: Any, image_ref: str, path: Path, disk_format: str
    ) -> None:
        """The disk is the image's data (no header written: the image
        holds the disk as it was, its header included), made beside
        the final name and renamed, grown sparsely to the flavor's root
        disk."""
        self.wait_spawn_seconds()
        disk = self.disk_path(instance.uuid)
        disk.parent.mkdir(parents=True, exist_ok=True)
        part = disk.with_name('disk.unshelve')
        part.unlink(missing_ok=True)
        try:
            if disk_format == 'qcow2':
                local_snapshot.to_raw(path, part)
            elif disk_format == 'raw':
                sparse_copy(path, part)
            else:
                raise exception.VirtDriverError(
                    reason=f'cannot make a disk of a {disk_format} image'
                )
            with open(part, 'rb+') as made:
                wanted = instance.root_gb * 1024**3
                if os.fstat(made.fileno()).st_size < wanted:
                    made.truncate(wanted)
                os.fsync(made.fileno())
            os.replace(part, disk)
        finally:
            part.unlink(missing_ok=True)
        self._console(
            instance.uuid,
            *local_console.boot_lines(
                1, f'snapshot {image_ref}', self._disk_hostname(instance.uuid)
            ),
        )
        LOG.info(
            'Created disk %s from image %s (%s)',
            disk,
            image_ref,
            disk_format,
            instance=instance,
        )

    @staticmethod
    def _write_disk(path: Path, instance: Any, image_ref: str) -> None:
        """A sparse disk of the flavor's size whose first bytes name
        the instance, the image it was made from and the guest's host
        name (as a guest would get it at boot or rebuild)."""
        fields = {'instance': instance.uuid, 'image': image_ref}
        hostname = _hostname(instance)
        if hostname is not None:
            fields['hostname'] = hostname
        header = json.dumps(fields).encode()
        with open(path, 'wb') as disk:
            disk.write(header)
            disk.truncate(max(len(header), instance.root_gb * 1024**3))
            disk.flush()
            os.fsync(disk.fileno())

    @_one_at_a_time
    def rebuild(self, instance: Any, image_ref: str) -> None:
        """The new disk is written beside the old one and renamed over
        it: there is never a moment without a disk."""
        path = self.disk_path(instance.uuid)
        if not path.exists():
            raise exception.VirtDriverError(
                reason=f'instance {instance.uuid} has no disk on this host'
            )
        part = path.with_name('disk.rebuild')
        self._write_disk(part, instance, image_ref)
        os.replace(part, path)
        self._write_power(
            instance.uuid,
            RUNNING,
            boot=True,
            source=f'disk, rebuilt from image {image_ref}',
        )
        LOG.info(
            'Rebuilt the disk with image %s', image_ref, instance=instance
        )

    @_one_at_a_time
    def snapshot(self, instance: Any, dest: Path) -> str:
        """The disk as ``[virt_resources]snapshot_image_format`` says:
        qcow2 (converted by qemu-img, holes left out) or a sparse copy."""
        disk = self.disk_path(instance.uuid)
        if not disk.exists():
            raise exception.VirtDriverError(
                reason=f'instance {instance.uuid} has no disk on this host'
            )
        image_format = self.conf.virt_resources.snapshot_image_format
        if image_format == 'raw':
            sparse_copy(disk, dest)
        else:
            local_snapshot.to_qcow2(disk, dest)
        LOG.info(
            'Snapshot of the disk written (%s, %d bytes)',
            image_format,
            dest.stat().st_size,
            instance=instance,
        )
        return str(image_format)

    @_one_at_a_time
    def destroy(self, instance: Any, destroy_disks: bool = True) -> None:
        if destroy_disks:
            shutil.rmtree(
                self.instances_path / instance.uuid, ignore_errors=True
            )
            LOG.info('Deleted the disk of the instance', instance=instance)

    def power_path(self, uuid: str) -> Path:
        return self.instances_path / uuid / POWER_FILE

    def read_power(self, uuid: str) -> dict[str, Any]:
        """``{'state': 'running'|'shutdown', 'boots': n}`` of a guest."""
        try:
            power = json.loads(self.power_path(uuid).read_text())
        except FileNotFoundError:
            return {'state': RUNNING, 'boots': 1}
        except (OSError, ValueError) as exc:
            raise exception.VirtDriverError(
                reason=f'{self.power_path(uuid)} is unreadable: {exc}; '
                f'delete it to take the guest as running'
            )
        return {
            'state': power.get('state', RUNNING),
            'boots': int(power.get('boots', 1)),
        }

    def _write_power(
        self, uuid: str, state: str, boot: bool, source: str = 'disk'
    ) -> None:
        """The new power state, and its line in the console log (a
        boot: from ``source``)."""
        if not self.disk_path(uuid).exists():
            raise exception.VirtDriverError(
                reason=f'instance {uuid} has no disk on this host'
            )
        power = self.read_power(uuid)
        before = power['state']
        power['state'] = state
        if boot:
            power['boots'] += 1
        path = self.power_path(uuid)
        part = path.with_name(path.name + '.part')
        part.write_text(json.dumps(power))
        os.replace(part, path)
        if boot:
            self._console(
                uuid,
                *local_console.boot_lines(
                    power['boots'], source, self._disk_hostname(uuid)
                ),
            )
        elif state != before:
            self._console(uuid, _CONSOLE_EVENTS.get(state, state))

    def console_path(self, uuid: str) -> Path:
        return self.instances_path / uuid / local_console.CONSOLE_LOG

    def _console(self, uuid: str, *lines: str) -> None:
        """A line in the console log; a log that cannot be written is
        logged, never fails the step."""
        try:
            local_console.append(self.console_path(uuid), *lines)
        except OSError as exc:
            LOG.warning(
                'Could not write the console log %s: %s',
                self.console_path(uuid),
                exc,
                instance_uuid=uuid,
            )

    def _disk_hostname(self, uuid: str) -> str | None:
        """The guest's host name, from its disk's header."""
        try:
            with open(self.disk_path(uuid), 'rb') as disk:
                head = disk.read(4096)
            return cast(
                'str | None',
                json.loads(head.split(b'\0', 1)[0]).get('hostname'),
            )
        except (OSError, ValueError, AttributeError):
            return None

    def get_console_output(self, instance: Any) -> str:
        if not self.disk_path(instance.uuid).exists():
            raise exception.ConsoleNotAvailable()
        return local_console.read(self.console_path(instance.uuid))

    def power_state(self, instance: Any) -> int:
        if not self.disk_path(instance.uuid).exists():
            return power_state.NOSTATE
        return _POWER_STATES.get(
            self.read_power(instance.uuid)['state'], power_state.RUNNING
        )

    def power_update_event(self, instance: Any, target: str) -> None:
        """A local guest changes power only through nova (upstream's
        libvirt driver has no power-update either)."""
        raise NotImplementedError(
            'the local driver takes no power-update event'
        )

    @_one_at_a_time
    def power_off(self, instance: Any) -> None:
        self._write_power(instance.uuid, SHUTDOWN, boot=False)
        LOG.info('Powered off', instance=instance)

    @_one_at_a_time
    def power_on(self, instance: Any) -> None:
        running = self.read_power(instance.uuid)['state'] == RUNNING
        self._write_power(instance.uuid, RUNNING, boot=not running)
        LOG.info('Powered on', instance=instance)

    @_one_at_a_time
    def reboot(self, instance: Any, reboot_type: str) -> None:
        self._write_power(instance.uuid, RUNNING, boot=True)
        LOG.info('Rebooted (%s)', reboot_type.lower(), instance=instance)

    def _change(self, instance: Any, before: str, after: str) -> None:
        """From guest state ``before`` to ``after`` (the same boot)."""
        state = self.read_power(instance.uuid)['state']
        if state != before and state != after:
            raise exception.VirtDriverError(
                reason=f'the guest is {state}, not {before}'
            )
        self._write_power(instance.uuid, after, boot=False)
        LOG.info('Guest %s -> %s', state, after, instance=instance)

    @_one_at_a_time
    def pause(self, instance: Any) -> None:
        self._change(instance, RUNNING, PAUSED)

    @_one_at_a_time
    def unpause(self, instance: Any) -> None:
        self._change(instance, PAUSED, RUNNING)

    @_one_at_a_time
    def suspend(self, instance: Any) -> None:
        self._change(instance, RUNNING, SUSPENDED)

    @_one_at_a_time
    def resume(self, instance: Any) -> None:
        self._change(instance, SUSPENDED, RUNNING)

    # rescue (nova_lite.virt.local_rescue) ---------------------------------

    def rescue_path(self, uuid: str) -> Path:
        return self.instances_path / uuid / local_rescue.RESCUE_DISK

    def rescue_of(self, uuid: str) -> dict[str, Any] | None:
        """What the guest is rescued with; None when it is not."""
        return local_rescue.read_rescue_disk(self.rescue_path(uuid))

    @_one_at_a_time
    def rescue(self, instance: Any, image_ref: str, password: str) -> None:
        """The rescue disk is written beside the disk, which is kept as
        it is, and the guest boots from it."""
        if not self.disk_path(instance.uuid).exists():
            raise exception.VirtDriverError(
                reason=f'instance {instance.uuid} has no disk on this host'
            )
        local_rescue.write_rescue_disk(
            self.rescue_path(instance.uuid), instance, image_ref, password
        )
        self._write_power(
            instance.uuid,
            RUNNING,
            boot=True,
            source=f'rescue image {image_ref}',
        )
        LOG.info(
            'Rescued with image %s (rescue disk %s)',
            image_ref,
            self.rescue_path(instance.uuid),
            instance=instance,
        )

    @_one_at_a_time
    def unrescue(self, instance: Any) -> None:
        path = self.rescue_path(instance.uuid)
        rescued = path.exists()
        running = self.read_power(instance.uuid)['state'] == RUNNING
        path.unlink(missing_ok=True)
        self._write_power(instance.uuid, RUNNING, boot=rescued or not running)
        LOG.info(
            'Unrescued: the guest boots from its disk again'
            if rescued
            else 'Not rescued (no rescue disk); running',
            instance=instance,
        )

    # cold migration and resize -------------------------------------------

    def aside_path(self, uuid: str) -> Path:
        """Where the source keeps its copy during a move."""
        return self.instances_path / (uuid + RESIZE_SUFFIX)

    def prepare_incoming(self, instance: Any) -> dict[str, Any]:
        return {'instances_path': str(self.instances_path)}

    @_one_at_a_time
    def migrate_disk_and_power_off(
        self, instance: Any, dest_host: str, migrate_data: dict[str, Any]
    ) -> None:
        target = migrate_data.get('instances_path')
        if not target:
            raise exception.VirtDriverError(
                reason=f'the destination {dest_host} named no instances '
                f'directory (is it running the local driver?)'
            )
        here, aside = (
            self.instances_path / instance.uuid,
            self.aside_path(instance.uuid),
        )
        if not (here / 'disk').exists():
            raise exception.VirtDriverError(
                reason=f'no disk at {here / "disk"} to migrate'
            )
        shutil.rmtree(aside, ignore_errors=True)
        os.rename(here, aside)
        dest = Path(target) / instance.uuid / 'disk'
        try:
            dest.parent.mkdir(parents=True, exist_ok=True)
            sparse_copy(aside / 'disk', dest)
        except OSError as exc:
            os.rename(aside, here)
            raise exception.VirtDriverError(
                reason=f'copying the disk to {dest} on {dest_host} '
                f'failed: {exc}'
            ) from exc
        LOG.info(
            'Copied the disk to %s on %s; the local copy is kept at '
            '%s until the move is confirmed or reverted',
            dest,
            dest_host,
            aside,
            instance=instance,
        )

    @_one_at_a_time
    def finish_migration(
        self, instance: Any, root_gb: int, power_on: bool
    ) -> None:
        path = self.disk_path(instance.uuid)
        if not path.exists():
            raise exception.VirtDriverError(
                reason=f'the migrated disk did not arrive at {path}'
            )
        wanted = root_gb * 1024**3
        if path.stat().st_size < wanted:
            os.truncate(path, wanted)
            LOG.info('Grew the disk to %d GiB', root_gb, instance=instance)
        self._write_power(
            instance.uuid, RUNNING if power_on else SHUTDOWN, boot=power_on
        )

    @_one_at_a_time
    def confirm_migration(self, instance: Any) -> None:
        shutil.rmtree(self.aside_path(instance.uuid), ignore_errors=True)
        LOG.info('Deleted the copy kept on the source', instance=instance)

    @_one_at_a_time
    def finish_revert_migration(self, instance: Any, power_on: bool) -> None:
        here, aside = (
            self.instances_path / instance.uuid,
            self.aside_path(instance.uuid),
        )
        if aside.exists():
            # The same host's destination copy, if any, is already gone.
            shutil.rmtree(here, ignore_errors=True)
            os.rename(aside, here)
        if not (here / 'disk').exists():
            raise exception.VirtDriverError(
                reason=f'neither {aside} nor {here} holds the disk to '
                f'revert to'
            )
        self._write_power(
            instance.uuid, RUNNING if power_on else SHUTDOWN, boot=power_on
        )
        LOG.info('Restored the disk kept on the source', instance=instance)

    @_one_at_a_time
    def abort_migration(self, instance: Any) -> None:
        here, aside = (
            self.instances_path / instance.uuid,
            self.aside_path(instance.uuid),
        )
        if aside.exists() and not here.exists():
            os.rename(aside, here)
            LOG.warning(
                'Put back the disk kept aside by an interrupted move',
                instance=instance,
            )
