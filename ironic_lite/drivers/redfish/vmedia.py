"""Virtual media of a Redfish system: the VirtualMedia devices of the
system itself when it has any, else those of its managers (as
upstream). ironic's device types map to Redfish media types as
upstream's: cdrom -> CD (or DVD), floppy -> Floppy, disk -> USBStick."""

from collections.abc import Iterator
from typing import Any

from oslo_log import log as logging
import sushy

from ironic_lite import exception

LOG = logging.getLogger(__name__)

MEDIA_TYPES = {
    'cdrom': (sushy.VIRTUAL_MEDIA_CD, sushy.VIRTUAL_MEDIA_DVD),
    'floppy': (sushy.VIRTUAL_MEDIA_FLOPPY,),
    'disk': (sushy.VIRTUAL_MEDIA_USBSTICK,),
}


def _collection(resource: Any) -> Any | None:
    try:
        return resource.virtual_media
    except (sushy.exceptions.MissingAttributeError, AttributeError):
        return None


def _collections(system: Any) -> Iterator[Any]:
    """The system's VirtualMedia collection when it has one, else its
    managers' (as upstream: a BMC listing the same devices under both
    would otherwise show each twice)."""
    own = _collection(system)
    if own is not None:
        yield own
        return
    for manager in system.managers:
        collection = _collection(manager)
        if collection is not None:
            yield collection


def devices(system: Any) -> list[Any]:
    """Every virtual media device the BMC offers for the system."""
    return [
        device
        for collection in _collections(system)
        for device in collection.get_members()
    ]


def describe(system: Any) -> list[dict[str, Any]]:
    """Upstream's ``GET .../vmedia`` answer: per device, its media
    types, whether something is inserted and the image."""
    found = devices(system)
    if not found:
        raise exception.InvalidParameterValue(
            err='No suitable virtual media device found'
        )
    return [
        {
            'media_types': sorted(t.value for t in device.media_types),
            'inserted': bool(device.inserted),
            'image': device.image,
        }
        for device in found
    ]


def _of_type(system: Any, device_type: str) -> list[Any]:
    wanted = set(MEDIA_TYPES[device_type])
    return [
        device
        for device in devices(system)
        if wanted & set(device.media_types)
    ]


def insert(
    system: Any, node_uuid: str, device_type: str, image_url: str
) -> None:
    """Insert ``image_url`` into the first free device of the type.

    :raises InvalidParameterValue: the BMC has no such device, or every
        one is in use.
    """
    candidates = _of_type(system, device_type)
    if not candidates:
        raise exception.InvalidParameterValue(
            err=f'No suitable virtual media device of type {device_type} '
            f'found for node {node_uuid}'
        )
    free = [device for device in candidates if not device.inserted]
    if not free:
        raise exception.InvalidParameterValue(
            err=f'Every virtual media device of type {device_type} of '
            f'node {node_uuid} holds an image already; detach it first'
        )
    free[0].insert_media(image_url, inserted=True, write_protected=True)
    LOG.info(
        'Node %(node)s: %(url)s inserted as virtual %(type)s',
        {'node': node_uuid, 'url': image_url, 'type': device_type},
    )


def eject(system: Any, node_uuid: str, device_type: str | None = None) -> int:
    """Eject what the devices of the type (every device: None) hold;
    how many were ejected."""
    chosen = (
        devices(system)
        if device_type is None
        else _of_type(system, device_type)
    )
    ejected = 0
    for device in chosen:
        if device.inserted:
            device.eject_media()
            ejected += 1
    LOG.info(
        'Node %(node)s: %(n)d virtual media device(s) ejected',
        {'node': node_uuid, 'n': ejected},
    )
    return ejected
