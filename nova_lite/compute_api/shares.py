"""Manila share attachments of a server (2.97), without a share service.

Upstream attaches a Manila share to a stopped server whose compute host
offers virtio-fs (the ``COMPUTE_STORAGE_VIRTIO_FS`` trait and file- or
huge-page-backed memory) and records a share mapping. No virt driver
here offers virtio-fs and nova_lite talks to no Manila, so no mapping
can ever exist. The rules clients see are upstream's, in its order:

* list: no attachments (``{"shares": []}``);
* show: 404, upstream's "Share <id> could not be found.";
* attach: a server that is not stopped is a 409 (upstream's message);
  a stopped one is upstream's 409 for a compute without virtio-fs,
  before any share service is asked;
* detach: a server neither stopped nor in error is a 409; otherwise
  the share is not attached: 404.
"""

from typing import Any

from nova_lite import exception
from nova_lite.common import states

ATTACHABLE = (states.STOPPED,)
DETACHABLE = (states.STOPPED, states.ERROR)
Row = dict[str, Any]


def _check_state(inst: Row, action: str, allowed: tuple[str, ...]) -> None:
    if inst['vm_state'] not in allowed:
        raise exception.InstanceVmStateConflict(
            action=action,
            instance_uuid=inst['uuid'],
            vm_state=inst['vm_state'],
        )


def attachments(inst: Row) -> list[Row]:
    """The server's share mappings: none can exist here."""
    return []


def attachment(inst: Row, share_id: str) -> Row:
    raise exception.ShareNotFound(share_id=share_id)


def attach(inst: Row, share_id: str, tag: str | None) -> Row:
    _check_state(inst, 'create share', ATTACHABLE)
    # Upstream checks the host's virtio-fs support next: no driver here
    # has it.
    raise exception.SharesNotConfigured()


def detach(inst: Row, share_id: str) -> None:
    _check_state(inst, 'delete share', DETACHABLE)
    raise exception.ShareNotFound(share_id=share_id)
