"""A server's copy of its image's metadata, as upstream keeps it.

Upstream Nova copies the image's properties into the instance's system
metadata (``image_<property>``, values as strings of at most 255
characters) when the server is created and again when it is rebuilt,
together with ``image_min_ram``, ``image_min_disk``,
``image_disk_format`` and ``image_container_format``. Server views show
the standard image properties of that copy (2.98: ``image.properties``),
so a later change to (or deletion of) the image does not change what a
server reports, and no image lookup is needed to render one.
"""

from typing import Any

PREFIX = 'image_'

#: Properties too large for system metadata (upstream's SM_SKIP_KEYS).
_SKIPPED = frozenset(
    (
        'mappings',
        'block_device_mapping',
        'img_mappings',
        'img_block_device_mapping',
    )
)
#: Image attributes (not properties) copied too (SM_INHERITABLE_KEYS).
_INHERITED = ('min_ram', 'min_disk', 'disk_format', 'container_format')
_MAX_LENGTH = 255

#: The property names upstream shows in ``image.properties`` (2.98):
#: the fields of its ImageMetaProps object and their legacy names.
STANDARD_PROPERTIES = frozenset(
    (
        'hw_architecture',
        'hw_emulation_architecture',
        'hw_auto_disk_config',
        'hw_boot_menu',
        'hw_cdrom_bus',
        'hw_cpu_cores',
        'hw_cpu_sockets',
        'hw_cpu_max_cores',
        'hw_cpu_max_sockets',
        'hw_cpu_max_threads',
        'hw_cpu_policy',
        'hw_cpu_thread_policy',
        'hw_cpu_realtime_mask',
        'hw_cpu_threads',
        'hw_device_id',
        'hw_disk_bus',
        'hw_disk_type',
        'hw_floppy_bus',
        'hw_firmware_type',
        'hw_firmware_stateless',
        'hw_input_bus',
        'hw_ipxe_boot',
        'hw_locked_memory',
        'hw_machine_type',
        'hw_mem_encryption',
        'hw_mem_encryption_model',
        'hw_mem_page_size',
        'hw_numa_nodes',
        'hw_numa_cpus',
        'hw_numa_mem',
        'hw_pci_numa_affinity_policy',
        'hw_pointer_model',
        'hw_pmu',
        'hw_qemu_guest_agent',
        'hw_rescue_bus',
        'hw_rescue_device',
        'hw_rng_model',
        'hw_time_hpet',
        'hw_serial_port_count',
        'hw_scsi_model',
        'hw_video_model',
        'hw_video_ram',
        'hw_vif_model',
        'hw_viommu_model',
        'hw_vm_mode',
        'hw_watchdog_action',
        'hw_vif_multiqueue_enabled',
        'hw_tpm_model',
        'hw_tpm_version',
        'hw_ephemeral_encryption',
        'hw_ephemeral_encryption_format',
        'hw_ephemeral_encryption_secret_uuid',
        'hw_virtio_packed_ring',
        'hw_maxphysaddr_mode',
        'hw_maxphysaddr_bits',
        'hw_sound_model',
        'hw_usb_model',
        'hw_redirected_usb_ports',
        'img_bittorrent',
        'img_bdm_v2',
        'img_block_device_mapping',
        'img_cache_in_nova',
        'img_compression_level',
        'img_hv_requested_version',
        'img_hv_type',
        'img_config_drive',
        'img_linked_clone',
        'img_mappings',
        'img_owner_id',
        'img_root_device_name',
        'img_use_agent',
        'img_version',
        'img_signature',
        'img_signature_hash_method',
        'img_signature_certificate_uuid',
        'img_signature_key_type',
        'img_hide_hypervisor_id',
        'os_admin_user',
        'os_command_line',
        'os_distro',
        'os_require_quiesce',
        'os_secure_boot',
        'os_skip_agent_inject_files_at_boot',
        'os_skip_agent_inject_ssh',
        'os_type',
        'traits_required',
        # legacy names
        'architecture',
        'owner_id',
        'vmware_disktype',
        'vmware_image_version',
        'vmware_ostype',
        'auto_disk_config',
        'ipxe_boot',
        'xenapi_device_id',
        'xenapi_image_compression_level',
        'vmware_linked_clone',
        'xenapi_use_agent',
        'xenapi_skip_agent_inject_ssh',
        'xenapi_skip_agent_inject_files_at_boot',
        'cache_in_nova',
        'vm_mode',
        'bittorrent',
        'mappings',
        'block_device_mapping',
        'bdm_v2',
        'root_device_name',
        'hypervisor_version_requires',
        'hypervisor_type',
    )
)


def copied(
    image: dict[str, Any], flavor: dict[str, Any] | None
) -> dict[str, str]:
    """The ``image_*`` system metadata of a server booted from
    ``image`` (an image row) with ``flavor``."""
    kept = {
        PREFIX + key: str(value)[:_MAX_LENGTH]
        for key, value in (image.get('properties') or {}).items()
        if key not in _SKIPPED
    }
    for key in _INHERITED:
        value = image.get(key)
        if key == 'min_disk' and flavor:
            value = max(value or 0, flavor.get('root_gb') or 0)
        if value is not None:
            kept[PREFIX + key] = str(value)
    return kept


def replaced(
    system_metadata: dict[str, Any] | None,
    image: dict[str, Any],
    flavor: dict[str, Any] | None,
) -> dict[str, Any]:
    """System metadata with the copy of a new image (a rebuild): every
    ``image_*`` key goes, as upstream, and the new image's come."""
    kept = {
        key: value
        for key, value in (system_metadata or {}).items()
        if not key.startswith(PREFIX)
    }
    kept.update(copied(image, flavor))
    return kept


def shown(system_metadata: dict[str, Any] | None) -> dict[str, str]:
    """The standard image properties a server shows (2.98)."""
    return {
        key[len(PREFIX) :]: value
        for key, value in (system_metadata or {}).items()
        if key.startswith(PREFIX)
        and value is not None
        and key[len(PREFIX) :] in STANDARD_PROPERTIES
    }
