"""The virt driver interface and its stevedore loader."""

from pathlib import Path
from typing import Any
from typing import cast

from oslo_config import cfg
import stevedore

from nova_lite import exception

NAMESPACE = 'nova_lite.virt_drivers'


class NodeResources(dict[str, Any]):
    """What a driver reports for one node: vcpus, memory_mb, local_gb,
    hypervisor_type, hypervisor_version, hypervisor_hostname; optionally
    resource_class (a whole machine) and traits (a list of names)."""


class ComputeDriver:
    """What a compute agent needs from a hypervisor.

    ``manages_many_nodes``: the driver fronts many nodes (bare metal)
    and takes node identities from them; such an agent keeps no
    ``compute_id`` file.
    """

    manages_many_nodes = False
    hypervisor_type = 'unknown'

    def __init__(
        self, conf: cfg.ConfigOpts, host: str, state_path: str
    ) -> None:
        self.conf = conf
        self.host = host
        self.state_path = state_path

    def init_host(self) -> None:
        """Called once at startup, before any instance is touched."""

    def get_available_nodes(self) -> list[str]:
        raise NotImplementedError

    def get_node_resources(self, nodename: str) -> NodeResources:
        raise NotImplementedError

    def get_node_uuid(self, nodename: str) -> str:
        """The UUID of a node; only drivers that manage many nodes."""
        raise NotImplementedError

    def get_host_uptime(self) -> str:
        """What the ``uptime`` command prints on the host
        (os-hypervisors/{id}/uptime); NotImplementedError: unknown."""
        raise NotImplementedError

    def get_instance_diagnostics(self, instance: Any) -> dict[str, Any]:
        """The guest's diagnostics in upstream's standard form (see
        :mod:`nova_lite.virt.diagnostics`); NotImplementedError: none."""
        raise NotImplementedError

    def get_console_output(self, instance: Any) -> str:
        """The guest's console log so far (os-getConsoleOutput);
        ConsoleNotAvailable: the guest is not here; NotImplementedError:
        the driver keeps none."""
        raise NotImplementedError

    def shares_storage_with(self, host: str | None) -> bool:
        """Whether instance disks here are also those of ``host`` (then
        an evacuated instance's disks are kept). Per-host storage: no."""
        return False

    def list_instance_uuids(self) -> list[str]:
        """Every instance the hypervisor has, whatever the database says."""
        raise NotImplementedError

    def list_aside_uuids(self) -> list[str]:
        """Instances of which a copy is kept aside for a move (the
        source's copy until confirm or revert)."""
        return []

    def destroy_aside(self, uuid: str) -> None:
        """Remove the copy of ``uuid`` kept aside, if any."""

    def spawn(self, instance: Any, image_ref: str | None = None) -> None:
        """Create the guest from ``image_ref`` (default: the instance's
        image; an unshelve gives its snapshot) and start it."""
        raise NotImplementedError

    #: Whether the driver makes a guest's disk of an image's data
    #: (:meth:`spawn_from_disk_image`): an unshelve then downloads its
    #: snapshot. Others spawn from the image's id.
    takes_disk_images = False

    def spawn_from_disk_image(
        self, instance: Any, image_ref: str, path: Path, disk_format: str
    ) -> None:
        """Create the guest with the image file at ``path`` (its data,
        ``raw`` or ``qcow2``; an unshelve's snapshot ``image_ref``) as
        its disk, grown to the flavor's root disk, and start it; the
        file is the caller's (it removes it afterwards)."""
        raise NotImplementedError

    def destroy(self, instance: Any, destroy_disks: bool = True) -> None:
        raise NotImplementedError

    def rebuild(self, instance: Any, image_ref: str) -> None:
        """Replace the guest's disk content with ``image_ref`` and boot
        it (the user's rebuild, on the guest's host). Running it again
        gives the same result."""
        self.destroy(instance)
        self.spawn(instance, image_ref=image_ref)

    def snapshot(self, instance: Any, dest: Path) -> str:
        """Write an image of the guest's disk to the new file ``dest``
        (createImage, createBackup, shelve); its disk format (``raw``,
        ``qcow2``). The guest keeps running."""
        raise NotImplementedError

    def power_state(self, instance: Any) -> int:
        raise NotImplementedError

    # Power actions (os-stop, os-start, reboot). Each raises
    # VirtDriverError when the guest is not on this host.

    def power_off(self, instance: Any) -> None:
        raise NotImplementedError

    def power_on(self, instance: Any) -> None:
        raise NotImplementedError

    def reboot(self, instance: Any, reboot_type: str) -> None:
        """``SOFT`` or ``HARD``; the guest runs afterwards."""
        raise NotImplementedError

    # pause / unpause (the guest frozen in memory) and suspend / resume
    # (its memory saved to disk); each raises VirtDriverError when the
    # guest is not on this host.

    def pause(self, instance: Any) -> None:
        raise NotImplementedError

    def unpause(self, instance: Any) -> None:
        raise NotImplementedError

    def suspend(self, instance: Any) -> None:
        raise NotImplementedError

    def resume(self, instance: Any) -> None:
        raise NotImplementedError

    # rescue / unrescue: the guest boots a rescue image with the
    # instance's own disk attached beside it, the disk untouched.

    def rescue(self, instance: Any, image_ref: str, password: str) -> None:
        """Stop the guest and boot it from ``image_ref`` (its disk kept
        as it is), with ``password`` for the rescue system; running it
        again replaces the rescue. RescueNotSupported: nothing was
        changed."""
        raise exception.RescueNotSupported(
            reason=f'the {type(self).__name__} driver has no rescue'
        )

    def unrescue(self, instance: Any) -> None:
        """Remove the rescue and boot the guest from its own disk; a
        guest not rescued is only started. Running it again gives the
        same result."""
        raise exception.RescueNotSupported(
            reason=f'the {type(self).__name__} driver has no rescue'
        )

    def power_update_event(self, instance: Any, target: str) -> None:
        """Acknowledge a power change made outside nova (``POWER_ON`` or
        ``POWER_OFF``, the power-update external event); only drivers
        whose guests can change that way have it (upstream's)."""
        raise NotImplementedError()

    # Cold migration and resize. The source keeps its copy aside until
    # the move is confirmed (then deleted) or reverted (then restored).

    def prepare_incoming(self, instance: Any) -> dict[str, Any]:
        """On the destination: what the source needs to send the disks
        here (the ``migrate_data`` passed to the source)."""
        return {}

    def migrate_disk_and_power_off(
        self, instance: Any, dest_host: str, migrate_data: dict[str, Any]
    ) -> None:
        """On the source: stop the guest, send its disks to the
        destination, keep the local copy aside."""
        raise NotImplementedError

    def finish_migration(
        self, instance: Any, root_gb: int, power_on: bool
    ) -> None:
        """On the destination: the disks have arrived; grow the root
        disk to ``root_gb`` and start the guest (unless stopped)."""
        raise NotImplementedError

    def confirm_migration(self, instance: Any) -> None:
        """On the source: delete the copy kept aside."""
        raise NotImplementedError

    def finish_revert_migration(self, instance: Any, power_on: bool) -> None:
        """On the source: bring back the copy kept aside."""
        raise NotImplementedError

    def abort_migration(self, instance: Any) -> None:
        """On the source, after an interrupted send: put the copy kept
        aside back in place if it was moved; never delete anything."""


def load_driver(
    conf: cfg.ConfigOpts, host: str, state_path: str, name: str | None = None
) -> ComputeDriver:
    """Load ``name`` (default ``[DEFAULT]compute_driver``) by entry
    point name."""
    name = name or conf.compute_driver
    try:
        manager: stevedore.DriverManager[Any] = stevedore.DriverManager(
            NAMESPACE,
            name,
            invoke_on_load=True,
            invoke_args=(conf, host, state_path),
        )
    except stevedore.exception.NoMatches:
        names = sorted(stevedore.ExtensionManager(NAMESPACE).names())
        raise exception.ConfigError(
            reason=f'compute_driver {name!r} is unknown; '
            f'available drivers: {", ".join(names) or "none"}'
        )
    return cast(ComputeDriver, manager.driver)
