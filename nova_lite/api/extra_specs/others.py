"""The known extra specs of the scheduler filters' namespaces
(``aggregate_instance_extra_specs``, ``capabilities``) and of the
drivers' (``os``, ``quota``, ``accel``, ``pci_passthrough``,
``vmware``), as upstream names them."""

from nova_lite.api.extra_specs.rules import ANY
from nova_lite.api.extra_specs.rules import BOOL
from nova_lite.api.extra_specs.rules import COUNT
from nova_lite.api.extra_specs.rules import INT
from nova_lite.api.extra_specs.rules import Spec
from nova_lite.api.extra_specs.rules import enum
from nova_lite.api.extra_specs.rules import pattern

#: Host state fields the ComputeCapabilitiesFilter compares with any
#: operator (``>= 5``, ``s== 2.1.0``, ``<in> gcc``, a plain value).
CAPABILITIES = (
    'id',
    'uuid',
    'service_id',
    'host',
    'vcpus',
    'memory_mb',
    'local_gb',
    'vcpus_used',
    'memory_mb_used',
    'local_gb_used',
    'hypervisor_type',
    'hypervisor_version',
    'hypervisor_hostname',
    'free_ram_mb',
    'free_disk_gb',
    'current_workload',
    'running_vms',
    'disk_available_least',
    'host_ip',
    'mapped',
    'cpu_allocation_ratio',
    'ram_allocation_ratio',
    'disk_allocation_ratio',
    'total_usable_ram_mb',
    'total_usable_disk_gb',
    'disk_mb_used',
    'free_disk_mb',
    'vcpus_total',
    'num_instances',
    'num_io_ops',
    'failed_builds',
    'aggregates',
    'cell_uuid',
    'updated',
)
#: Nested host state fields: ``capabilities:cpu_info:arch``.
NESTED_CAPABILITIES = (
    'cpu_info',
    'metrics',
    'stats',
    'numa_topology',
    'supported_hv_specs',
    'pci_device_pools',
    'nodename',
    'pci_stats',
    'supported_instances',
    'limits',
    'instances',
)

SCHEDULER = (
    [
        Spec('aggregate_instance_extra_specs:{key}', ANY, (('key', r'.+'),)),
    ]
    + [Spec(f'capabilities:{name}', ANY) for name in CAPABILITIES]
    + [
        Spec(f'capabilities:{name}{{filter}}', ANY, (('filter', r'(:\w+)*'),))
        for name in NESTED_CAPABILITIES
    ]
)


def _quota() -> list[Spec]:
    specs = []
    for key in ('cpu', 'memory', 'disk_io', 'vif'):
        specs += [
            Spec(f'quota:{key}_limit', COUNT),
            Spec(f'quota:{key}_reservation', INT),
            Spec(
                f'quota:{key}_shares_level',
                enum('custom', 'high', 'normal', 'low'),
            ),
            Spec(f'quota:{key}_shares_share', COUNT),
        ]
    specs += [
        Spec('quota:cpu_shares', COUNT),
        Spec('quota:cpu_period', COUNT),
        Spec('quota:cpu_quota', INT),
    ]
    specs += [
        Spec(f'quota:disk_{stat}_{metric}_sec', COUNT)
        for stat in ('read', 'write', 'total')
        for metric in ('bytes', 'iops')
    ]
    specs += [
        Spec(f'quota:vif_{stat}_{metric}', COUNT)
        for stat in ('inbound', 'outbound')
        for metric in ('average', 'peak', 'burst')
    ]
    return specs


DRIVERS = _quota() + [
    Spec('os:secure_boot', enum('disabled', 'required')),
    Spec('accel:device_profile', ANY),
    # One or more comma-separated ``$alias:$count``.
    Spec('pci_passthrough:alias', pattern(r'[^:]+:\d+(?:\s*,\s*[^:]+:\d+)*')),
    Spec('vmware:hw_version', ANY),
    Spec('vmware:storage_policy', ANY),
    # Deprecated, without a namespace (hw:hide_hypervisor_id instead).
    Spec('hide_hypervisor_id', BOOL),
]

SPECS = SCHEDULER + DRIVERS
