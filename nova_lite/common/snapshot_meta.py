"""The system metadata of a snapshot or backup in progress: written by
the API with the task (compute_api/images.py), read by the server's
agent (compute/snapshot.py), removed when the task ends."""

#: The id of the image being written.
IMAGE_KEY = 'snapshot_image_id'
#: A backup's type and how many of that type to keep.
BACKUP_TYPE_KEY = 'backup_type'
ROTATION_KEY = 'backup_rotation'
KEYS = (IMAGE_KEY, BACKUP_TYPE_KEY, ROTATION_KEY)
