"""What the conductor caches of a node's hardware when it verifies it
(``manage``) and when cleaning starts and ends, as upstream's
``node_update_cache``: the BIOS settings (its BIOS interface) and the
firmware components (its firmware interface).

Caching never fails the flow that asks for it: an interface that cannot
(``no-bios``, a BMC without a BIOS resource) is skipped with a warning,
any other failure is logged with the node's uuid."""

from oslo_log import log as logging

from ironic_lite import exception
from ironic_lite.conductor import task_manager

LOG = logging.getLogger(__name__)


def _cache(task: task_manager.Task, kind: str, method: str, what: str) -> None:
    node = task.node
    interface = task.interfaces.get(kind)
    if interface is None:
        return
    try:
        interface.validate(task)
        getattr(interface, method)(task)
    except exception.UnsupportedDriverExtension:
        LOG.warning(
            '%(what)s are not supported for node %(node)s, skipping',
            {'what': what, 'node': node.uuid},
        )
    except Exception:
        LOG.exception(
            'Caching of %(what)s failed on node %(node)s',
            {'what': what.lower(), 'node': node.uuid},
        )


def update_cache(task: task_manager.Task) -> None:
    """Cache the node's BIOS settings and firmware components."""
    _cache(task, 'bios', 'cache_bios_settings', 'BIOS settings')
    _cache(
        task, 'firmware', 'cache_firmware_components', 'Firmware components'
    )
