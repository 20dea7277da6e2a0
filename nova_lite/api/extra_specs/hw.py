"""The known extra specs of the ``hw``, ``hw_rng`` and ``hw_video``
namespaces (upstream's names and values, as of its current release)."""

from nova_lite.api.extra_specs.rules import BOOL
from nova_lite.api.extra_specs.rules import COUNT
from nova_lite.api.extra_specs.rules import CPU_MAP
from nova_lite.api.extra_specs.rules import POSITIVE
from nova_lite.api.extra_specs.rules import Spec
from nova_lite.api.extra_specs.rules import Value
from nova_lite.api.extra_specs.rules import enum
from nova_lite.api.extra_specs.rules import pattern

_NODE = (('num', r'\d+'),)  # a guest NUMA node

CPU = [
    Spec('hw:cpu_realtime', BOOL),
    Spec(
        'hw:cpu_realtime_mask', pattern(r'(\^)?\d+((-\d+)?(,\^?\d+(-\d+)?)?)*')
    ),
    Spec('hw:cpu_policy', enum('dedicated', 'shared', 'mixed')),
    Spec('hw:cpu_thread_policy', enum('prefer', 'isolate', 'require')),
    Spec('hw:emulator_threads_policy', enum('isolate', 'share')),
    Spec('hw:cpu_dedicated_mask', pattern(CPU_MAP)),
] + [
    Spec(f'hw:cpu_{limit}{part}', POSITIVE)
    for limit in ('', 'max_')
    for part in ('sockets', 'cores', 'threads')
]

MEMORY_AND_NUMA = [
    Spec(
        'hw:mem_page_size',
        pattern(r'(large|small|any|\d+([kKMGT]i?)?(b|bit|B)?)'),
    ),
    Spec('hw:locked_memory', BOOL),
    Spec('hw:numa_nodes', POSITIVE),
    Spec('hw:numa_cpus.{num}', pattern(CPU_MAP), _NODE),
    Spec('hw:numa_mem.{num}', POSITIVE, _NODE),
    Spec(
        'hw:pci_numa_affinity_policy',
        enum('required', 'preferred', 'legacy', 'socket'),
    ),
]

FEATURES = [
    Spec('hw:hide_hypervisor_id', BOOL),
    Spec('hw:boot_menu', BOOL),
    Spec('hw:vif_multiqueue_enabled', BOOL),
    Spec('hw:mem_encryption', BOOL),
    Spec(
        'hw:mem_encryption_model', enum('amd-sev', 'amd-sev-es', 'amd-sev-snp')
    ),
    Spec('hw:pmem', pattern('([a-zA-Z0-9_]+(,)?)+')),
    Spec('hw:pmu', BOOL),
    Spec('hw:serial_port_count', COUNT),
    Spec('hw:tpm_model', enum('tpm-tis', 'tpm-crb')),
    Spec('hw:tpm_version', enum('1.2', '2.0')),
    Spec('hw:tpm_secret_security', enum('user', 'host', 'deployment')),
    Spec(
        'hw:watchdog_action',
        enum('none', 'pause', 'poweroff', 'reset', 'disabled'),
    ),
    Spec('hw:viommu_model', enum('intel', 'smmuv3', 'virtio', 'auto')),
    Spec('hw:virtio_packed_ring', BOOL),
    Spec(
        'hw:sound_model',
        enum(
            'sb16', 'es1370', 'pcspk', 'ac97', 'ich6', 'ich9', 'usb', 'virtio'
        ),
    ),
    Spec('hw:usb_model', enum('none', 'nec-xhci', 'qemu-xhci')),
    Spec('hw:redirected_usb_ports', Value(int, low=0, high=15)),
    Spec('hw:ephemeral_encryption', BOOL),
    Spec('hw:ephemeral_encryption_format', enum('plain', 'luks', 'luksv2')),
]

DEVICES = [
    Spec('hw_rng:allowed', BOOL),
    Spec('hw_rng:rate_bytes', COUNT),
    Spec('hw_rng:rate_period', COUNT),
    Spec('hw_video:ram_max_mb', COUNT),
]

SPECS = CPU + MEMORY_AND_NUMA + FEATURES + DEVICES
