"""Server diagnostics as the fake and local drivers know them.

One dict in upstream's standard form (2.48, the fields of its
``Diagnostics`` object); what a driver cannot measure is None, as
upstream shows an unset field; the API shows it in the form of earlier
microversions with :func:`nova_lite.api.views.diagnostics.free_form`."""

import platform
from typing import Any

from nova_lite.common import power_state

_STATES = {power_state.RUNNING: 'running', power_state.SHUTDOWN: 'shutdown'}


def standard(
    instance: Any, driver: str, hypervisor: str, state: int
) -> dict[str, Any]:
    """What is known of a fake or local guest: its state, flavor and one
    disk, no counters (None)."""
    return {
        'state': _STATES.get(state, 'pending'),
        'driver': driver,
        'hypervisor': hypervisor,
        'hypervisor_os': platform.system().lower() or None,
        'uptime': None,
        'config_drive': bool(instance.config_drive),
        'num_cpus': instance.vcpus,
        'num_nics': 0,
        'num_disks': 1,
        'cpu_details': [
            {'id': index, 'time': None, 'utilisation': None}
            for index in range(instance.vcpus)
        ],
        'nic_details': [],
        'disk_details': [
            {
                'read_bytes': None,
                'read_requests': None,
                'write_bytes': None,
                'write_requests': None,
                'errors_count': None,
            }
        ],
        'memory_details': {'maximum': instance.memory_mb, 'used': None},
    }
