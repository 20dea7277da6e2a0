"""The states all three nova_lite processes share: an instance's
vm_state and task_state (the values upstream Nova stores and reports),
the statuses of migration records the agent and the conductor both
reason about, instance action results, and whether a record of an
instance is live or deleted.

It imports nothing: the compute agent, which has no database, reads
these from here, never from :mod:`nova_lite.db`.
"""

# vm_state
BUILDING = 'building'
ACTIVE = 'active'
STOPPED = 'stopped'
PAUSED = 'paused'
SUSPENDED = 'suspended'
RESCUED = 'rescued'
RESIZED = 'resized'
SOFT_DELETED = 'soft-delete'
DELETED = 'deleted'
ERROR = 'error'
SHELVED = 'shelved'
SHELVED_OFFLOADED = 'shelved_offloaded'

# task_state
SCHEDULING = 'scheduling'
SPAWNING = 'spawning'
DELETING = 'deleting'
REBUILDING = 'rebuilding'
REBUILD_SPAWNING = 'rebuild_spawning'
RESIZE_PREP = 'resize_prep'
RESIZE_MIGRATING = 'resize_migrating'
RESIZE_MIGRATED = 'resize_migrated'
RESIZE_FINISH = 'resize_finish'
RESIZE_REVERTING = 'resize_reverting'
RESIZE_CONFIRMING = 'resize_confirming'
MIGRATING = 'migrating'
REBOOTING = 'rebooting'
REBOOTING_HARD = 'rebooting_hard'
POWERING_OFF = 'powering-off'
POWERING_ON = 'powering-on'
PAUSING = 'pausing'
UNPAUSING = 'unpausing'
SUSPENDING = 'suspending'
RESUMING = 'resuming'
SHELVING = 'shelving'
SHELVING_IMAGE_PENDING_UPLOAD = 'shelving_image_pending_upload'
SHELVING_IMAGE_UPLOADING = 'shelving_image_uploading'
#: The task states of a shelve (upstream's: the guest is powered off,
#: its disk image written, then uploaded).
SHELVING_TASKS = (
    SHELVING,
    SHELVING_IMAGE_PENDING_UPLOAD,
    SHELVING_IMAGE_UPLOADING,
)
SHELVING_OFFLOADING = 'shelving_offloading'
UNSHELVING = 'unshelving'
SOFT_DELETING = 'soft-deleting'
RESTORING = 'restoring'
RESCUING = 'rescuing'
UNRESCUING = 'unrescuing'
IMAGE_SNAPSHOT_PENDING = 'image_snapshot_pending'
IMAGE_SNAPSHOT = 'image_snapshot'
IMAGE_BACKUP = 'image_backup'
IMAGE_PENDING_UPLOAD = 'image_pending_upload'
IMAGE_UPLOADING = 'image_uploading'
#: The task states of a snapshot or backup (createImage, createBackup).
IMAGE_TASKS = (
    IMAGE_SNAPSHOT_PENDING,
    IMAGE_SNAPSHOT,
    IMAGE_BACKUP,
    IMAGE_PENDING_UPLOAD,
    IMAGE_UPLOADING,
)

# Migration.status of a cold move (migration, resize) that arrived but
# may still be reverted: the source keeps its room until it is
# confirmed (the source then forgets it) or reverted (the instance
# comes back).
REVERTIBLE = ('finished', 'confirming', 'reverting')
# Migration.status of a cold move (migration, resize) still under way:
# its instance may have a copy on the source and the destination.
COLD_MOVES_IN_FLIGHT = (
    'pre-migrating',
    'migrating',
    'post-migrating',
    *REVERTIBLE,
)
# Migration.status of a move arriving at its destination whose claim
# the destination's resources count.
INCOMING_STATUSES = ('pre-migrating', 'migrating', 'post-migrating')

# Whether the records of an instance uuid show it live or only deleted
# (what a compute agent asks before it destroys a local copy).
RECORD_LIVE, RECORD_DELETED = 'live', 'deleted'

# InstanceActionEvent.result.
ACTION_SUCCESS, ACTION_ERROR = 'Success', 'Error'
