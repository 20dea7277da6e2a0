"""Validation of known flavor extra specs (2.86), with upstream's
names, values and messages."""

import pytest

from nova_lite import exception
from nova_lite.api import extra_specs
from stacklite import baremetal_pool

VALID = [
    # This project's bare metal flavors.
    *baremetal_pool.FLAVOR_SPECS.items(),
    ('trait:CUSTOM_RAID', 'required'),
    ('trait:CUSTOM_GOLD', 'forbidden'),
    # Request groups.
    ('resources1:VCPU', '2'),
    ('resources_gpu:VGPU', '1'),
    ('trait1:HW_CPU_X86_AVX2', 'required'),
    ('resources:CUSTOM_FOO_1', '-1'),
    ('group_policy', 'isolate'),
    ('hw:cpu_policy', 'dedicated'),
    ('hw:cpu_thread_policy', 'prefer'),
    ('hw:cpu_realtime', 'yes'),
    ('hw:cpu_realtime_mask', '^0-1'),
    ('hw:numa_nodes', '2'),
    ('hw:numa_cpus.0', '0,1'),
    ('hw:numa_mem.1', '1024'),
    ('hw:mem_page_size', '2MB'),
    ('hw:mem_page_size', 'large'),
    ('hw:cpu_max_sockets', '4'),
    ('hw:watchdog_action', 'reset'),
    ('hw:tpm_version', '2.0'),
    ('hw:redirected_usb_ports', '15'),
    ('hw:pmem', '4GB,SMALL'),
    ('hw_rng:allowed', 'False'),
    ('hw_rng:rate_bytes', '0'),
    ('hw_video:ram_max_mb', '64'),
    ('os:secure_boot', 'required'),
    ('quota:cpu_quota', '-1'),
    ('quota:disk_read_iops_sec', '100'),
    ('quota:vif_outbound_burst', '0'),
    ('quota:memory_shares_level', 'low'),
    ('aggregate_instance_extra_specs:ssd', 'true'),
    ('aggregate_instance_extra_specs:rack', '<in> a'),
    ('capabilities:hypervisor_type', 's== ironic'),
    ('capabilities:cpu_info:arch', 'x86_64'),
    ('capabilities:stats', 'x'),
    ('accel:device_profile', 'fpga-1'),
    ('pci_passthrough:alias', 'a1:2, b:3'),
    ('hide_hypervisor_id', 'true'),
    # Unknown namespaces and names without one pass as they are.
    ('baremetal:deploy_kernel', 'x'),
    ('hw-extra:x', 'y'),
    ('anything', 'goes'),
    ('cpu_arch', 'x86_64'),
]

INVALID = [
    (
        'hw:cpu_policy',
        'foo',
        "Validation failed; 'foo' is not one of: dedicated, shared, mixed.",
    ),
    (
        'hw:numa_nodes',
        'two',
        "Validation failed; 'two' is not a valid integer value.",
    ),
    (
        'hw:numa_nodes',
        '0',
        "Validation failed; '0' is less than the min value of '1'.",
    ),
    (
        'hw:redirected_usb_ports',
        '16',
        "Validation failed; '16' is greater than the max value of '15'.",
    ),
    (
        'hw:boot_menu',
        'maybe',
        "Validation failed; 'maybe' is not a valid boolean-like value.",
    ),
    (
        'hw:numa_cpus.0',
        'a-b',
        r"Validation failed; 'a-b' is not of the format "
        r"'\^?\d+((-\d+)?(,\^?\d+(-\d+)?)?)*'.",
    ),
    (
        'hw:cpu_polcy',
        'dedicated',
        "Validation failed; extra spec 'hw:cpu_polcy' does not appear to be "
        'a valid extra spec.',
    ),
    (
        'resources:CUSTOM_BAREMETAL',
        'one',
        "Validation failed; 'one' is not a valid integer value.",
    ),
    (
        'resources:custom_lower',
        '1',
        "Validation failed; extra spec 'resources:custom_lower' does not "
        'appear to be a valid extra spec.',
    ),
    (
        'resources2:NOT_A_CLASS',
        '1',
        "Validation failed; extra spec 'resources2:NOT_A_CLASS' does not "
        'appear to be a valid extra spec.',
    ),
    (
        'trait:CUSTOM_RAID',
        'yes',
        "Validation failed; 'yes' is not one of: required, forbidden.",
    ),
    (
        'trait:NOT_A_TRAIT',
        'required',
        "Validation failed; extra spec 'trait:NOT_A_TRAIT' does not appear "
        'to be a valid extra spec.',
    ),
    (
        'group_policy',
        'strict',
        "Validation failed; 'strict' is not one of: isolate, none.",
    ),
    (
        'os:secure_boot',
        'optional',
        "Validation failed; 'optional' is not one of: disabled, required.",
    ),
    (
        'quota:disk_write_bytes_sec',
        '-5',
        "Validation failed; '-5' is less than the min value of '0'.",
    ),
    (
        'capabilities:unknown',
        'x',
        "Validation failed; extra spec 'capabilities:unknown' does not "
        'appear to be a valid extra spec.',
    ),
    (
        'pci_passthrough:alias',
        'a1',
        r"Validation failed; 'a1' is not of the format "
        r"'[^:]+:\d+(?:\s*,\s*[^:]+:\d+)*'.",
    ),
    (
        'hw_rng:rate_period',
        '-1',
        "Validation failed; '-1' is less than the min value of '0'.",
    ),
    (
        'hw_video:ram_max_mb',
        '1.5',
        "Validation failed; '1.5' is not a valid integer value.",
    ),
]


def _ids(cases):
    # No ':' in a test id: gabbi's collection hook (in the same pytest
    # run) takes ids with a ':' for its own and fails the whole run.
    return [f'{case[0]}={case[1]}'.replace(':', '.') for case in cases]


@pytest.mark.parametrize(('name', 'value'), VALID, ids=_ids(VALID))
def test_valid(name, value):
    extra_specs.validate(name, value)


@pytest.mark.parametrize(
    ('name', 'value', 'message'), INVALID, ids=_ids(INVALID)
)
def test_invalid(name, value, message):
    with pytest.raises(exception.Invalid) as caught:
        extra_specs.validate(name, value)
    assert caught.value.format_message() == message


def test_every_known_spec_is_in_a_known_namespace():
    known = extra_specs.registry()
    for spec in known.by_name.values():
        if spec.namespace is not None:
            sample = spec.name.replace('{', '').replace('}', '')
            assert known.in_known_namespace(sample), spec.name
