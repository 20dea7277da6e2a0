"""Server diagnostics as the fake and local drivers know them.

One dict in upstream's standard form (2.48, the fields of its
``Diagnostics`` object); what a driver cannot measure is None, as
upstream shows an unset field. :func:`free_form` gives the form of
earlier microversions, keyed as libvirt's."""

import platform
from typing import Any

from nova_lite.virt import power_state

_STATES = {power_state.RUNNING: 'running', power_state.SHUTDOWN: 'shutdown'}


def standard(instance: Any, driver: str, hypervisor: str,
             state: int) -> dict[str, Any]:
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
        'cpu_details': [{'id': index, 'time': None, 'utilisation': None}
                        for index in range(instance.vcpus)],
        'nic_details': [],
        'disk_details': [{'read_bytes': None, 'read_requests': None,
                          'write_bytes': None, 'write_requests': None,
                          'errors_count': None}],
        'memory_details': {'maximum': instance.memory_mb, 'used': None},
    }


def free_form(diagnostics: dict[str, Any]) -> dict[str, Any]:
    """Before 2.48: libvirt's keys (``memory`` in KiB, ``cpuN_time``,
    ``vda_read``...) for what is known."""
    body: dict[str, Any] = {}
    memory = diagnostics['memory_details']['maximum']
    if memory is not None:
        body['memory'] = memory * 1024
    for cpu in diagnostics['cpu_details']:
        if cpu['time'] is not None:
            body[f'cpu{cpu["id"]}_time'] = cpu['time']
    disk_keys = (('read_bytes', 'read'), ('read_requests', 'read_req'),
                 ('write_bytes', 'write'), ('write_requests', 'write_req'),
                 ('errors_count', 'errors'))
    for index, disk in enumerate(diagnostics['disk_details']):
        name = 'vd' + chr(ord('a') + index)
        for key, suffix in disk_keys:
            if disk[key] is not None:
                body[f'{name}_{suffix}'] = disk[key]
    return body
