"""The known extra specs of placement requests: ``resources{group}``,
``trait{group}`` (standard names from os-traits, and ``CUSTOM_*``) and
``group_policy``.

This project's bare metal flavors ask ``resources:CUSTOM_<CLASS>=1``
with ``resources:VCPU=0`` (etc.) and ``trait:CUSTOM_<TRAIT>=required``:
all of them are known and valid here.
"""

import os_traits

from nova_lite.api.extra_specs.rules import GROUP
from nova_lite.api.extra_specs.rules import INT
from nova_lite.api.extra_specs.rules import Spec
from nova_lite.api.extra_specs.rules import enum

#: The standard resource classes (os-resource-classes 1.1.0).
STANDARD_RESOURCE_CLASSES = (
    'VCPU',
    'MEMORY_MB',
    'DISK_GB',
    'PCI_DEVICE',
    'SRIOV_NET_VF',
    'NUMA_SOCKET',
    'NUMA_CORE',
    'NUMA_THREAD',
    'NUMA_MEMORY_MB',
    'IPV4_ADDRESS',
    'VGPU',
    'VGPU_DISPLAY_HEAD',
    'NET_BW_EGR_KILOBIT_PER_SEC',
    'NET_BW_IGR_KILOBIT_PER_SEC',
    'PCPU',
    'MEM_ENCRYPTION_CONTEXT',
    'FPGA',
    'PGPU',
    'NET_PACKET_RATE_KILOPACKET_PER_SEC',
    'NET_PACKET_RATE_EGR_KILOPACKET_PER_SEC',
    'NET_PACKET_RATE_IGR_KILOPACKET_PER_SEC',
)

_GROUP = (('group', GROUP),)
_CUSTOM = r'[A-Z0-9_]+'
_TRAIT_VALUE = enum('required', 'forbidden')


def _resources() -> list[Spec]:
    """An amount of a resource class: an integer (no lower bound, as
    upstream: ``resources:VCPU=0`` turns a flavor's own VCPU off)."""
    specs = [
        Spec(f'resources{{group}}:{rc}', INT, _GROUP)
        for rc in STANDARD_RESOURCE_CLASSES
    ]
    specs.append(
        Spec(
            'resources{group}:CUSTOM_{resource}',
            INT,
            _GROUP + (('resource', _CUSTOM),),
        )
    )
    return specs


def _traits() -> list[Spec]:
    specs = [
        Spec(f'trait{{group}}:{trait}', _TRAIT_VALUE, _GROUP)
        for trait in os_traits.get_traits()
        if not trait.startswith(os_traits.CUSTOM_NAMESPACE)
    ]
    specs.append(
        Spec(
            'trait{group}:CUSTOM_{trait}',
            _TRAIT_VALUE,
            _GROUP + (('trait', _CUSTOM),),
        )
    )
    return specs


SPECS = (
    _resources()
    + _traits()
    + [
        Spec('group_policy', enum('isolate', 'none')),
    ]
)
