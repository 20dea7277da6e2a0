"""Values a Bare Metal API request may set on a node's hardware, checked
by the API and used by the conductor (upstream's names)."""

#: The boot modes a node may be set to.
BOOT_MODES = ('bios', 'uefi')
#: The devices virtual media may be attached as.
VMEDIA_DEVICES = ('disk', 'cdrom', 'floppy')
