"""Server diagnostics as the Compute API shows them before 2.48."""

from typing import Any


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
    disk_keys = (
        ('read_bytes', 'read'),
        ('read_requests', 'read_req'),
        ('write_bytes', 'write'),
        ('write_requests', 'write_req'),
        ('errors_count', 'errors'),
    )
    for index, disk in enumerate(diagnostics['disk_details']):
        name = 'vd' + chr(ord('a') + index)
        for key, suffix in disk_keys:
            if disk[key] is not None:
                body[f'{name}_{suffix}'] = disk[key]
    return body
