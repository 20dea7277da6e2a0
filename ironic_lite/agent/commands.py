"""The commands the agent runs, and their results, as
ironic-python-agent serializes them: ``{'id', 'command_name',
'command_status', 'command_error', 'command_result'}`` with the status
``RUNNING``, ``SUCCEEDED`` or ``FAILED``; an error is
``{'type', 'code', 'message', 'details'}``.

``clean.get_clean_steps``, ``rescue.finalize_rescue`` (the rescue
password written: :mod:`.rescue`) and ``image.install_bootloader`` (the
partitions of a partition image checked: :mod:`.partition_image`) run
at once (sync commands); ``clean.execute_clean_step`` and
``standby.prepare_image`` (a whole-disk image onto the root device:
:mod:`.images`, then its ``configdrive`` into a partition at the
device's end: :mod:`.configdrive`; a partition image into the root
partition of a new table: :mod:`.partition_image`) run on a thread of
their own (async commands) and one at a time: another command while one
runs is refused with upstream's 409 "Agent is busy".
"""

from collections.abc import Callable
from pathlib import Path
import threading
from typing import Any
import uuid

from oslo_log import log as logging

from ironic_lite.agent import configdrive
from ironic_lite.agent import disks
from ironic_lite.agent import images
from ironic_lite.agent import partition_image
from ironic_lite.agent import rescue

LOG = logging.getLogger(__name__)

RUNNING = 'RUNNING'
SUCCEEDED = 'SUCCEEDED'
FAILED = 'FAILED'
#: Upstream's status of a step sent with another hardware manager
#: version than the agent has.
VERSION_MISMATCH = 'CLEAN_VERSION_MISMATCH'


class AgentError(Exception):
    """An error with upstream's REST form (``RESTError``)."""

    message = 'An error occurred'
    code = 500

    def __init__(self, details: str) -> None:
        super().__init__(details)
        self.details = details

    def serialize(self) -> dict[str, Any]:
        return {
            'type': type(self).__name__,
            'code': self.code,
            'message': self.message,
            'details': self.details,
        }

    def __str__(self) -> str:
        return f'{self.message}: {self.details}'


class InvalidCommandError(AgentError):
    message = 'Invalid command'
    code = 400


class AgentIsBusy(AgentError):
    message = 'Agent is busy'
    code = 409


class CleaningError(AgentError):
    message = 'Clean step failed'


class VersionMismatch(AgentError):
    message = 'Hardware managers version mismatch'
    code = 409


class ImageDownloadError(AgentError):
    message = 'Error downloading image'


class ImageChecksumError(AgentError):
    message = 'Error verifying image checksum'


class ImageWriteError(AgentError):
    message = 'Error writing image to device'


class BootloaderError(AgentError):
    message = 'Error installing bootloader'


_IMAGE_ERRORS: dict[str, type[AgentError]] = {
    cls.__name__: cls
    for cls in (ImageDownloadError, ImageChecksumError, ImageWriteError)
}


def _mib(count: int) -> str:
    return f'{count / images.MIB:.1f} MiB'


def _progress_line(command: 'CommandResult') -> str:
    """``<command> [<step or image>]: <done> of <total> MiB (<n>%)``."""
    params = command.params
    label = command.name
    step = params.get('step')
    if isinstance(step, dict) and step.get('step'):
        label += f' {step["step"]}'
    image = params.get('image_info')
    if isinstance(image, dict) and image.get('id'):
        label += f' of image {image["id"]}'
    result = command.result
    progress = result.get('progress') if isinstance(result, dict) else None
    if not isinstance(progress, dict):
        return f'{label}: started'
    done, total = progress['bytes_done'], progress['bytes_total']
    if not total:
        return f'{label}: {_mib(done)} done'
    return f'{label}: {_mib(done)} of {_mib(total)} ({done * 100 // total}%)'


class CommandResult:
    """One command and how it went."""

    def __init__(self, name: str, params: dict[str, Any]) -> None:
        self.id = str(uuid.uuid4())
        self.name = name
        self.params = params
        self.status = RUNNING
        self.error: dict[str, Any] | None = None
        self.result: Any = None
        self.done = threading.Event()

    def finish(
        self,
        result: Any = None,
        error: AgentError | None = None,
        status: str | None = None,
    ) -> None:
        if error is None:
            self.status, self.result = SUCCEEDED, result
        else:
            self.status, self.error = status or FAILED, error.serialize()
        self.done.set()

    def serialize(self) -> dict[str, Any]:
        return {
            'id': self.id,
            'command_name': self.name,
            'command_status': self.status,
            'command_error': self.error,
            'command_result': self.result,
        }


class CommandRunner:
    """Runs the commands on the disk files ``disk_files``."""

    def __init__(
        self,
        disk_files: list[Path],
        random_passes: int,
        zeros: bool,
        rescue_password_file: Path | None = None,
        on_rescued: Callable[[], None] | None = None,
        efi_system_partition_mib: int = 550,
    ) -> None:
        """``on_rescued``: called once ``rescue.finalize_rescue`` wrote the
        password (the agent's part of the rescue is over);
        ``efi_system_partition_mib``: the EFI system partition made for a
        partition image in UEFI mode."""
        self.disk_files = disk_files
        self.random_passes = random_passes
        self.zeros = zeros
        self.rescue_password_file = rescue_password_file
        self.on_rescued = on_rescued
        self.efi_system_partition_mib = efi_system_partition_mib
        self.results: list[CommandResult] = []
        self._lock = threading.Lock()
        self.stopping = threading.Event()

    def get(self, command_id: str) -> CommandResult | None:
        with self._lock:
            return next((c for c in self.results if c.id == command_id), None)

    def list(self) -> list[dict[str, Any]]:
        with self._lock:
            return [c.serialize() for c in self.results]

    def status_message(self) -> str | None:
        """How far the running command is (the heartbeats'
        ``agent_status_message``), or None when none runs."""
        with self._lock:
            running = next(
                (c for c in self.results if c.status == RUNNING), None
            )
        if running is None:
            return None
        return _progress_line(running)

    def run(self, name: str, params: dict[str, Any]) -> CommandResult:
        """Start command ``name`` (``extension.command``).

        :raises InvalidCommandError: unknown command or bad params.
        :raises AgentIsBusy: an async command still runs.
        """
        handlers: dict[str, Callable[[CommandResult], None]] = {
            'clean.get_clean_steps': self._get_clean_steps,
            'clean.execute_clean_step': self._start_clean_step,
            'standby.prepare_image': self._start_prepare_image,
            'rescue.finalize_rescue': self._finalize_rescue,
            'image.install_bootloader': self._install_bootloader,
        }
        if name not in handlers:
            raise InvalidCommandError(f'Unknown command: {name}')
        with self._lock:
            busy = [c for c in self.results if c.status == RUNNING]
            if busy:
                raise AgentIsBusy(f'executing command {busy[0].name}')
            result = CommandResult(name.partition('.')[2], params)
            self.results.append(result)
        handlers[name](result)
        return result

    def _get_clean_steps(self, result: CommandResult) -> None:
        result.finish(
            {
                'clean_steps': {disks.MANAGER_CLASS: disks.clean_steps()},
                'hardware_manager_version': disks.versions(),
            }
        )

    def _finalize_rescue(self, result: CommandResult) -> None:
        """Write the rescue password (ironic-python-agent's file: the
        rescue environment sets the login's password from it), then the
        agent's part is over: ``on_rescued``."""
        try:
            path = rescue.write_password(
                self.rescue_password_file,
                result.params.get('rescue_password'),
                bool(result.params.get('hashed')),
            )
        except rescue.RescueError as exc:
            result.finish(error=InvalidCommandError(str(exc)))
            return
        LOG.info('Rescue password written to %s', path)
        result.finish({})
        if self.on_rescued is not None:
            self.on_rescued()

    def _install_bootloader(self, result: CommandResult) -> None:
        try:
            message = partition_image.install_bootloader(
                self.disk_files[0], result.params
            )
        except images.ImageError as exc:
            LOG.error('install_bootloader failed: %s', exc)
            result.finish(error=BootloaderError(str(exc)))
            return
        LOG.info('%s', message)
        result.finish({'result': message})

    def _start_clean_step(self, result: CommandResult) -> None:
        step = result.params.get('step')
        if not isinstance(step, dict) or 'step' not in step:
            result.finish(
                error=InvalidCommandError(
                    f'Malformed clean_step, no "step" key: {step}'
                )
            )
            return
        version = result.params.get('clean_version')
        if version and version != disks.versions():
            result.finish(
                error=VersionMismatch(
                    f'expected {version}, have {disks.versions()}'
                ),
                status=VERSION_MISMATCH,
            )
            return
        threading.Thread(
            target=self._execute,
            args=(result, step),
            name=f'clean-step-{step["step"]}',
            daemon=True,
        ).start()

    def _execute(self, result: CommandResult, step: dict[str, Any]) -> None:
        name = step['step']
        LOG.info('Executing clean step %s', name)
        try:
            outcome = self._step(name, step, result)
        except AgentError as exc:
            LOG.error('Clean step %s failed: %s', name, exc)
            result.finish(error=exc)
            return
        except Exception as exc:
            LOG.exception('Clean step %s failed', name)
            result.finish(
                error=CleaningError(
                    f'Unexpected exception performing clean step {name}. '
                    f'{type(exc).__name__}: {exc}'
                )
            )
            return
        LOG.info('Clean step %s completed: %s', name, outcome)
        result.finish({'clean_result': outcome, 'clean_step': step})

    def _step(
        self, name: str, step: dict[str, Any], result: CommandResult
    ) -> Any:
        missing = [str(p) for p in self.disk_files if not p.is_file()]
        if missing:
            raise CleaningError(
                f'disk file(s) not found: {", ".join(missing)}'
            )
        if name == 'erase_devices_metadata':
            return {str(p): disks.erase_metadata(p) for p in self.disk_files}
        if name == 'erase_devices':

            def progress(done: int, total: int) -> None:
                result.result = {
                    'progress': {'bytes_done': done, 'bytes_total': total}
                }

            return disks.erase(
                self.disk_files,
                self.random_passes,
                self.zeros,
                progress,
                self.stopping.is_set,
            )
        raise CleaningError(f'No hardware manager has the clean step {name}')

    def _start_prepare_image(self, result: CommandResult) -> None:
        threading.Thread(
            target=self._prepare_image,
            args=(result,),
            name='prepare-image',
            daemon=True,
        ).start()

    def _prepare_image(self, result: CommandResult) -> None:
        def progress(done: int, total: int | None) -> None:
            result.result = {
                'progress': {'bytes_done': done, 'bytes_total': total}
            }

        disk = self.disk_files[0]
        drive = result.params.get('configdrive')
        try:
            # Decoded (or downloaded) first: a bad one writes nothing.
            iso = None if drive is None else configdrive.decode(drive)
            image_info = result.params.get('image_info')
            if (
                isinstance(image_info, dict)
                and image_info.get('image_type') == 'partition'
            ):
                message = partition_image.prepare(
                    disk,
                    image_info,
                    iso,
                    self.efi_system_partition_mib,
                    progress,
                    self.stopping.is_set,
                )
            else:
                message = images.prepare_image(
                    disk, image_info, progress, self.stopping.is_set
                )
                if iso is not None:
                    message += '; ' + configdrive.write(disk, iso)
        except images.ImageError as exc:
            LOG.error('prepare_image failed: %s', exc)
            result.finish(error=_IMAGE_ERRORS[exc.kind](str(exc)))
            return
        except Exception as exc:
            LOG.exception('prepare_image failed')
            result.finish(
                error=ImageWriteError(f'{type(exc).__name__}: {exc}')
            )
            return
        LOG.info('%s', message)
        result.finish({'result': message})
