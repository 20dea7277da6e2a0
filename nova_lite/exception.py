"""nova_lite exceptions: no HTTP knowledge here.

Each carries a message built from keyword arguments; the API maps the
classes to status codes, and RPC endpoints declare them as expected so
that they reach the caller intact.
"""

from lite_common.exception import LiteException


class NovaLiteException(LiteException):
    msg_fmt = 'An unknown exception occurred.'


class ConfigError(NovaLiteException):
    msg_fmt = 'Invalid configuration: %(reason)s'


class NotFound(NovaLiteException):
    msg_fmt = 'Resource could not be found.'


class Invalid(NovaLiteException):
    msg_fmt = 'Unacceptable parameters: %(reason)s'


class Conflict(NovaLiteException):
    msg_fmt = 'Conflict: %(reason)s'


class QuotaError(NovaLiteException):
    msg_fmt = 'Quota exceeded: %(reason)s'


class TooManyInstances(QuotaError):
    # Upstream Nova's wording, which clients and operators know.
    msg_fmt = (
        'Quota exceeded for %(overs)s: Requested %(req)s, but '
        'already used %(used)s of %(allowed)s %(overs)s'
    )


class ServiceNotFound(NotFound):
    msg_fmt = 'Service %(service)s could not be found.'


class ServiceExists(Conflict):
    msg_fmt = 'Service with host %(host)s binary %(binary)s exists.'


class ComputeHostNotFound(NotFound):
    msg_fmt = 'Compute host %(host)s could not be found.'


class ComputeNodeNotFound(NotFound):
    msg_fmt = 'Compute node %(node)s could not be found.'


class ComputeNodeExists(Conflict):
    msg_fmt = 'Compute node %(node)s already exists.'


class InstanceNotFound(NotFound):
    msg_fmt = 'Instance %(instance_id)s could not be found.'


class AlreadyPlaced(Conflict):
    msg_fmt = 'Instance %(instance_uuid)s is already placed on %(host)s.'


class InstanceInvalidState(Conflict):
    msg_fmt = (
        'Cannot %(action)s instance %(instance_uuid)s while it is '
        'in %(attr)s %(state)s.'
    )


class InstanceStateConflict(Conflict):
    msg_fmt = (
        "Cannot '%(action)s' instance %(instance_uuid)s while it is "
        'in vm_state %(vm_state)s and task_state %(task_state)s.'
    )


class MoveInProgress(Conflict):
    msg_fmt = (
        'Instance %(instance_uuid)s has %(migration_type)s '
        '%(migration_uuid)s still %(status)s; a new move waits until '
        'it ends (see "openstack server migration list --server '
        '%(instance_uuid)s").'
    )


class UnshelveInstanceInvalidState(Conflict):
    msg_fmt = (
        'Specifying an availability zone or a host when unshelving '
        'server "%(instance_uuid)s" with status "%(state)s" is not '
        'supported. The server status must be SHELVED_OFFLOADED.'
    )


class UnshelveHostNotFound(Invalid):
    msg_fmt = 'Compute host %(host)s could not be found.'


class UnshelveHostNotInAZ(Conflict):
    msg_fmt = (
        'Host "%(host)s" is not in the availability zone '
        '"%(availability_zone)s".'
    )


class ZoneNotAvailable(Invalid):
    msg_fmt = 'The requested availability zone is not available'


class ComputeServiceInUse(Invalid):
    msg_fmt = 'Compute service of %(host)s is still in use.'


class UnexpectedTaskState(Conflict):
    msg_fmt = (
        'Instance %(instance_uuid)s: unexpected task state; '
        'expected %(expected)s, found %(actual)s.'
    )


class MigrationNotFound(NotFound):
    msg_fmt = 'Migration %(migration_id)s could not be found.'


class FlavorNotFound(NotFound):
    msg_fmt = 'Flavor %(flavor_id)s could not be found.'


class FlavorExists(Conflict):
    msg_fmt = 'Flavor with %(field)s %(value)s already exists.'


class ImageNotFound(NotFound):
    msg_fmt = 'Image %(image_id)s could not be found.'


class ImageNotActive(Invalid):
    """Booting or rebuilding from an image whose data is not there
    (upstream's, a 400)."""

    msg_fmt = 'Image %(image_id)s is not active.'


class NoValidHost(NovaLiteException):
    msg_fmt = 'No valid host was found. %(reason)s'


class ObjectActionError(NovaLiteException):
    msg_fmt = 'Object action %(action)s failed because: %(reason)s'


class NoDatabase(ObjectActionError):
    """A remotable method's body ran in a process without a database
    (see :mod:`nova_lite.common.has_database`)."""

    msg_fmt = (
        '%(module)s.%(attribute)s needs the database, and this process '
        'has none (nova_lite.db.api.configure has not run here): the '
        'remotable call of a versioned object should have gone to the '
        "conductor through the objects' indirection (indirection_api)"
    )


class ImageUploadFailed(NovaLiteException):
    """A compute agent could not store a snapshot's data in the Image
    API."""

    msg_fmt = 'Could not upload image %(image_id)s: %(reason)s'


class ImageDownloadFailed(NovaLiteException):
    """A compute agent could not read an image's data (an unshelve's
    snapshot) from the Image API, or the data did not match the
    image's size and hash."""

    msg_fmt = 'Could not download image %(image_id)s: %(reason)s'


class VirtDriverError(NovaLiteException):
    msg_fmt = 'Virt driver error: %(reason)s'


class RescueNotSupported(VirtDriverError):
    """The driver (or the machine) cannot rescue this guest; nothing was
    changed."""

    msg_fmt = 'Rescue is not supported here: %(reason)s'


class UnsupportedRescueImage(Invalid):
    msg_fmt = "Requested rescue image '%(image)s' is not supported"


class ComputeIdentityError(NovaLiteException):
    """The agent cannot establish who it is without risking the database.

    Raised before the agent touches any record or instance; the message
    says what was found, what was expected and what to do.
    """

    msg_fmt = 'Compute node identity problem: %(reason)s'


class ComputeHostInUse(Conflict):
    """Another live nova-lite-compute process holds the host name: a
    second agent must not start under it (see
    nova_lite.db.service_identity). The agent exits 1: a restart once
    the other process stopped may succeed."""

    msg_fmt = (
        'Compute host name %(host)s is held by a live '
        'nova-lite-compute process (%(process)s, incarnation '
        '%(incarnation)s, last heartbeat %(age)s s ago; it counts '
        'as dead after service_down_time = %(timeout)s s). Stop '
        'that process first, or give this one another [DEFAULT]'
        'host. If it is known to be dead (its machine is off), '
        'wait until its heartbeat is older than service_down_time '
        'or let the name go with "nova-lite-manage compute release '
        '%(host)s".'
    )


class ComputeReplaced(NovaLiteException):
    """This agent process no longer holds its host name: another process
    took it over (this one was thought dead) or an operator released
    it. It must destroy nothing more and stop."""

    msg_fmt = (
        'Compute %(host)s: this process (incarnation '
        '%(incarnation)s) was replaced (the host name is held by: '
        '%(holder)s); it does no more work.'
    )


class HostRenameRefused(Invalid):
    msg_fmt = 'Cannot rename the compute host: %(reason)s'


class InstanceIsLocked(Conflict):
    # Upstream's wording.
    msg_fmt = 'Instance %(instance_uuid)s is locked'


class MarkerNotFound(NotFound):
    msg_fmt = 'Marker %(marker)s could not be found.'


class InstanceNotReady(Conflict):
    msg_fmt = 'Instance %(instance_id)s is not ready'


class InstanceVmStateConflict(Conflict):
    # Upstream's wording (raise_http_conflict_for_instance_invalid_state).
    msg_fmt = (
        "Cannot '%(action)s' instance %(instance_uuid)s while it is "
        'in vm_state %(vm_state)s'
    )


class ShareNotFound(NotFound):
    msg_fmt = 'Share %(share_id)s could not be found.'


class SharesNotConfigured(Conflict):
    # Upstream's ForbiddenSharesNotConfiguredCorrectly.
    msg_fmt = (
        'Feature not supported because either compute or instance '
        'are not configured correctly.'
    )


class ConsoleNotAvailable(NotFound):
    msg_fmt = 'Guest does not have a console available.'


class ConsoleTypeUnavailable(Invalid):
    msg_fmt = 'Unavailable console type %(console_type)s.'


class InvalidKeypair(Invalid):
    msg_fmt = 'Keypair data is invalid: %(reason)s'


class KeypairNotFound(NotFound):
    msg_fmt = 'Keypair %(name)s not found for user %(user_id)s'


class KeyPairExists(Conflict):
    msg_fmt = "Key pair '%(key_name)s' already exists."


class KeypairLimitExceeded(QuotaError):
    msg_fmt = 'Quota exceeded, too many key pairs.'


class MetadataLimitExceeded(QuotaError):
    msg_fmt = 'Maximum number of metadata items exceeds %(allowed)d'


class MetadataItemNotFound(NotFound):
    msg_fmt = 'Metadata item was not found'


class FlavorExtraSpecNotFound(NotFound):
    msg_fmt = 'Flavor %(flavor_id)s has no extra specs with key %(key)s.'


class InstanceTagNotFound(NotFound):
    msg_fmt = "Server %(server_id)s has no tag '%(tag)s'"


class TooManyTags(Invalid):
    msg_fmt = 'The number of tags exceeded the per-server limit %(limit)d'


class FlavorAccessExists(Conflict):
    msg_fmt = (
        'Flavor access already exists for flavor %(flavor_id)s and '
        'project %(project_id)s combination.'
    )


class FlavorAccessNotFound(NotFound):
    msg_fmt = (
        'Flavor access not found for %(flavor_id)s / %(project_id)s '
        'combination.'
    )


# Host aggregates and availability zones (upstream's wording).


class AggregateNotFound(NotFound):
    msg_fmt = 'Aggregate %(aggregate_id)s could not be found.'


class AggregateNameExists(Conflict):
    msg_fmt = 'Aggregate %(aggregate_name)s already exists.'


class AggregateHostNotFound(NotFound):
    msg_fmt = 'Aggregate %(aggregate_id)s has no host %(host)s.'


class AggregateHostExists(Conflict):
    msg_fmt = 'Aggregate %(aggregate_id)s already has host %(host)s.'


class InvalidAggregateAction(Invalid):
    msg_fmt = 'Unacceptable parameters.'


class InvalidAggregateActionAdd(InvalidAggregateAction):
    msg_fmt = (
        'Cannot add host to aggregate %(aggregate_id)s. Reason: %(reason)s.'
    )


class InvalidAggregateActionDelete(InvalidAggregateAction):
    msg_fmt = (
        'Cannot remove host from aggregate %(aggregate_id)s. '
        'Reason: %(reason)s.'
    )


class InvalidAggregateActionUpdate(InvalidAggregateAction):
    msg_fmt = 'Cannot update aggregate %(aggregate_id)s. Reason: %(reason)s.'


class InvalidAggregateActionUpdateMeta(InvalidAggregateAction):
    msg_fmt = (
        'Cannot update metadata of aggregate %(aggregate_id)s. '
        'Reason: %(reason)s.'
    )


class InstanceGroupNotFound(NotFound):
    msg_fmt = 'Instance group %(group_uuid)s could not be found.'


class ServerGroupLimitExceeded(QuotaError):
    msg_fmt = 'Quota exceeded, too many server groups.'
