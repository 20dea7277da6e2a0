"""ironic_lite exceptions.

Each exception builds its message from keyword arguments (``msg_fmt``),
so that it survives an RPC round trip, and carries ``code``: the HTTP
status the API answers with when the exception reaches it. The RPC
endpoints of the conductor declare these classes as expected.
"""

from lite_common.exception import LiteException


class IronicLiteException(LiteException):
    msg_fmt = 'An unknown exception occurred.'
    code = 500


class ConfigError(IronicLiteException):
    msg_fmt = 'Invalid configuration: %(reason)s'


class Invalid(IronicLiteException):
    msg_fmt = 'Unacceptable parameters: %(reason)s'
    code = 400


class InvalidParameterValue(Invalid):
    msg_fmt = '%(err)s'


class MissingParameterValue(InvalidParameterValue):
    pass


class InvalidStateRequested(Invalid):
    msg_fmt = (
        'The requested action "%(action)s" cannot be performed on '
        'node %(node)s while it is in provision state "%(state)s".'
    )


class NotFound(IronicLiteException):
    msg_fmt = 'Resource could not be found.'
    code = 404


class NodeNotFound(NotFound):
    msg_fmt = 'Node %(node)s could not be found.'


class Conflict(IronicLiteException):
    msg_fmt = 'Conflict: %(reason)s'
    code = 409


class InvalidState(Conflict):
    msg_fmt = 'Invalid resource state: %(reason)s'


class NodeLocked(Conflict):
    msg_fmt = (
        'Node %(node)s is locked by host %(host)s, please retry '
        'after the current operation is completed.'
    )


class HardwareTypeNotEnabled(InvalidParameterValue):
    msg_fmt = (
        'Hardware type "%(hardware_type)s" is not enabled; enabled '
        'hardware types: %(enabled)s. See the enabled_hardware_types '
        'option.'
    )


class HardwareTypeNotFound(InvalidParameterValue):
    msg_fmt = (
        'Hardware type "%(hardware_type)s" is enabled but not '
        'installed (entry point namespace %(namespace)s).'
    )


class InterfaceNotEnabled(InvalidParameterValue):
    msg_fmt = (
        'The %(interface_type)s interface "%(name)s" is not '
        'enabled; enabled: %(enabled)s. See the '
        'enabled_%(interface_type)s_interfaces option.'
    )


class InterfaceNotSupported(InvalidParameterValue):
    msg_fmt = (
        'Hardware type "%(hardware_type)s" does not support the '
        '%(interface_type)s interface "%(name)s"; supported: '
        '%(supported)s.'
    )


class InterfaceNotFound(InvalidParameterValue):
    msg_fmt = (
        'No %(interface_type)s interface "%(name)s" is installed '
        '(entry point namespace %(namespace)s).'
    )


class NoInterfaceAvailable(InvalidParameterValue):
    msg_fmt = (
        'Hardware type "%(hardware_type)s" supports no enabled '
        '%(interface_type)s interface; supported: %(supported)s, '
        'enabled: %(enabled)s.'
    )


class NoValidDefaultForInterface(InvalidParameterValue):
    msg_fmt = (
        '[DEFAULT]default_%(interface_type)s_interface names '
        '"%(name)s", which hardware type "%(hardware_type)s" cannot '
        'use: it must be enabled (enabled_%(interface_type)s_'
        'interfaces: %(enabled)s) and supported (%(supported)s).'
    )


class CleanStepNotFound(InvalidParameterValue):
    msg_fmt = 'The %(interface_type)s interface has no clean step "%(step)s".'


class HardwareInspectionFailure(IronicLiteException):
    msg_fmt = 'Failed to inspect hardware. Reason: %(error)s'


class NodeCleaningFailure(IronicLiteException):
    # ``node`` is kept for the logs of whoever catches it; the message
    # does not repeat it: it ends up in the node's own last_error.
    msg_fmt = '%(reason)s'


class NodeServicingFailure(IronicLiteException):
    # As NodeCleaningFailure: the message goes to the node's last_error.
    msg_fmt = '%(reason)s'


class CleanStepAborted(IronicLiteException):
    """Raised by ``task.checkpoint()`` in an abortable step once an
    abort was requested: the step stops, the node fails cleaning."""

    msg_fmt = 'the clean step was aborted by request'


class DuplicateCleanStepPriority(IronicLiteException):
    msg_fmt = (
        'The %(interface_type)s interface has two automated clean '
        'steps with priority %(priority)s: "%(first)s" and '
        '"%(second)s". Give one of them another priority with '
        '[conductor]clean_step_priority_override.'
    )


class NodeAlreadyExists(Conflict):
    msg_fmt = 'A node with UUID %(uuid)s already exists.'


class DuplicateName(Conflict):
    msg_fmt = 'A node with name %(name)s already exists.'


class InstanceAssociated(Conflict):
    msg_fmt = (
        'Instance %(instance_uuid)s is already associated with a '
        'node; it cannot be associated with node %(node)s too.'
    )


class NodeAssociated(InvalidState):
    msg_fmt = (
        'Node %(node)s is associated with instance %(instance)s; '
        'clear its instance_uuid first.'
    )


class NodeChanged(Conflict):
    msg_fmt = (
        'Node %(node)s was changed by another request since it was '
        'read (revision %(expected)s, now %(actual)s); read it '
        'again and retry.'
    )


class NodeNotLocked(Conflict):
    msg_fmt = (
        'Node %(node)s is not locked by host %(host)s (current '
        'holder: %(holder)s); nothing was released.'
    )


class ConductorNotFound(NotFound):
    msg_fmt = 'Conductor %(conductor)s could not be found.'


class ConductorHostInUse(Conflict):
    """Another live process holds the host name: a second process
    must not start under it (see ironic_lite.common.conductor_identity)."""

    msg_fmt = (
        'Conductor host name %(host)s is held by a live process '
        '(%(process)s, incarnation %(incarnation)s, last heartbeat '
        '%(age)s s ago; it counts as dead after [conductor]'
        'heartbeat_timeout = %(timeout)s s). Stop that process '
        'first, or give this one another [DEFAULT]host. If it is '
        'known to be dead (its machine is off), wait until its '
        'heartbeat is older than the timeout, or release the name '
        'with "ironic-lite-manage conductor release %(host)s".'
    )


class ConductorReplaced(IronicLiteException):
    """This process no longer holds its host name: another process
    took it over (this one was thought dead, or the name was released
    by an operator). It must stop touching nodes."""

    msg_fmt = (
        'Conductor %(host)s: this process (incarnation '
        '%(incarnation)s) was replaced by another process '
        '(%(holder)s); it takes no more work.'
    )
    code = 503


class NoValidHost(Invalid):
    msg_fmt = 'No valid host was found. Reason: %(reason)s'


class NoFreeConductorWorker(IronicLiteException):
    msg_fmt = (
        'Requested action cannot be performed because the conductor '
        'has no free worker; retry later.'
    )
    code = 503


class VifAlreadyAttached(Conflict):
    msg_fmt = (
        'Unable to attach VIF because VIF %(vif)s is already '
        'attached to Ironic %(object_type)s %(object_uuid)s'
    )


class NoFreePhysicalPorts(Invalid):
    msg_fmt = 'Unable to attach VIF %(vif)s, not enough free physical ports.'


class VifNotAttached(Invalid):
    msg_fmt = (
        'Unable to detach VIF %(vif)s from node %(node)s because it '
        'is not attached to it.'
    )


class HardwareError(IronicLiteException):
    """The hardware (its BMC) failed or did not answer: not the caller's
    fault, and not ours; a 503, retry later."""

    msg_fmt = 'The hardware failed: %(error)s'
    code = 503


class RedfishError(HardwareError):
    msg_fmt = 'Redfish exception occurred. Error: %(error)s'


class RedfishConnectionError(RedfishError):
    msg_fmt = 'Redfish connection failed for node %(node)s: %(error)s'


class BMCCallStopped(HardwareError):
    """The conductor stops: a call to a BMC that had not answered yet
    (or the wait before its next attempt) was given up rather than
    retried (:mod:`ironic_lite.common.stopping`). A flow treats it as
    interrupted, not as the node's failure."""

    msg_fmt = (
        'The conductor is stopping: %(what)s on the BMC of node '
        '%(node)s was given up'
    )


class IPMIFailure(HardwareError):
    msg_fmt = 'IPMI call failed for node %(node)s: %(error)s'


class IPMIConnectionError(IPMIFailure):
    msg_fmt = (
        'The BMC of node %(node)s at %(address)s did not answer '
        'IPMI: %(error)s'
    )


class FailedToGetSensorData(HardwareError):
    msg_fmt = 'Failed to get sensor data for node %(node)s. Error: %(error)s'


class PowerStateFailure(InvalidState):
    msg_fmt = (
        'Failed to set node %(node)s power state to %(pstate)s: the '
        'BMC still reports %(current)s after %(timeout)s s.'
    )


class NodeInMaintenance(Invalid):
    msg_fmt = (
        'The %(op)s operation cannot be performed on node %(node)s '
        'because it is in maintenance mode; unset it first '
        '(openstack baremetal node maintenance unset %(node)s).'
    )


class VolumeConnectorNotFound(NotFound):
    msg_fmt = 'Volume connector %(connector)s could not be found.'


class VolumeTargetNotFound(NotFound):
    msg_fmt = 'Volume target %(target)s could not be found.'


class VolumeConnectorAlreadyExists(Conflict):
    msg_fmt = 'A volume connector with UUID %(uuid)s already exists.'


class VolumeConnectorTypeAndIdAlreadyExists(Conflict):
    msg_fmt = (
        'A volume connector with type %(type)s and connector ID '
        '%(connector_id)s already exists.'
    )


class VolumeTargetAlreadyExists(Conflict):
    msg_fmt = 'A volume target with UUID %(uuid)s already exists.'


class VolumeTargetBootIndexAlreadyExists(Conflict):
    msg_fmt = (
        "A volume target with boot index '%(boot_index)s' for the "
        'same node already exists.'
    )


class PowerStateRefused(Invalid):
    """Upstream's InvalidStateRequested for a change that needs the node
    powered off (its text names the power state)."""

    msg_fmt = (
        'The requested action "%(action)s" can not be performed on '
        'node "%(node)s" while it is in state "%(state)s".'
    )


class Forbidden(IronicLiteException):
    msg_fmt = 'Forbidden: %(reason)s'
    code = 403


class NodeProtected(Forbidden):
    msg_fmt = (
        'Node %(node)s is protected and cannot be undeployed, '
        'rebuilt or deleted'
    )


class NodeIsRetired(Invalid):
    msg_fmt = (
        "The %(op)s operation can't be performed on node "
        '%(node)s because it is retired.'
    )


class UnsupportedDriverExtension(Invalid):
    msg_fmt = (
        'Driver %(driver)s does not support %(extension)s '
        '(disabled or not implemented).'
    )


class NodeHistoryNotFound(NotFound):
    msg_fmt = 'Node history record %(history)s could not be found.'


class NodeTraitNotFound(NotFound):
    msg_fmt = "Node %(node)s doesn't have a trait '%(trait)s'"


class ChassisNotFound(NotFound):
    msg_fmt = 'Chassis %(chassis)s could not be found.'


class ChassisAlreadyExists(Conflict):
    msg_fmt = 'A chassis with UUID %(uuid)s already exists.'


class ChassisNotEmpty(Invalid):
    msg_fmt = (
        'Cannot complete the requested action because chassis '
        '%(chassis)s contains nodes.'
    )


class PortNotFound(NotFound):
    msg_fmt = 'Port %(port)s could not be found.'


class PortAlreadyExists(Conflict):
    msg_fmt = 'A port with UUID %(uuid)s already exists.'


class MACAlreadyExists(Conflict):
    msg_fmt = 'A port with MAC address %(mac)s already exists.'


class PortDuplicateName(Conflict):
    msg_fmt = 'A port with name %(name)s already exists.'


class PortgroupNotFound(NotFound):
    msg_fmt = 'Portgroup %(portgroup)s could not be found.'


class InvalidSwitchID(Invalid):
    msg_fmt = (
        'Expected a MAC address or OpenFlow datapath ID but '
        'received %(switch_id)s.'
    )


class PortgroupAlreadyExists(Conflict):
    msg_fmt = 'A portgroup with UUID %(uuid)s already exists.'


class PortgroupDuplicateName(Conflict):
    msg_fmt = 'A portgroup with name %(name)s already exists.'


class PortgroupMACAlreadyExists(Conflict):
    msg_fmt = 'A portgroup with MAC address %(mac)s already exists.'


class PortgroupNotEmpty(Invalid):
    msg_fmt = (
        'Cannot complete the requested action because portgroup '
        '%(portgroup)s contains ports.'
    )


class AllocationNotFound(NotFound):
    msg_fmt = 'Allocation %(allocation)s could not be found.'


class AllocationAlreadyExists(Conflict):
    msg_fmt = 'An allocation with UUID %(uuid)s already exists.'


class AllocationDuplicateName(Conflict):
    msg_fmt = 'An allocation with name %(name)s already exists.'


class AllocationChanged(Conflict):
    msg_fmt = 'Allocation %(allocation)s is no longer in state %(state)s.'


class AllocationFailed(IronicLiteException):
    msg_fmt = 'Failed to process allocation %(uuid)s: %(error)s.'


class DeployTemplateNotFound(NotFound):
    msg_fmt = 'Deploy template %(template)s could not be found.'


class DeployTemplateAlreadyExists(Conflict):
    msg_fmt = 'A deploy template with UUID %(uuid)s already exists.'


class DeployTemplateDuplicateName(Conflict):
    msg_fmt = 'A deploy template with name %(name)s already exists.'


class RunbookNotFound(NotFound):
    msg_fmt = 'Runbook %(runbook)s could not be found.'


class RunbookAlreadyExists(Conflict):
    msg_fmt = 'A runbook with UUID %(uuid)s already exists.'


class RunbookDuplicateName(Conflict):
    msg_fmt = 'A runbook with name %(name)s already exists.'


class InspectionRuleNotFound(NotFound):
    msg_fmt = 'Rule %(rule)s could not be found.'


class InspectionRuleAlreadyExists(Conflict):
    msg_fmt = 'A rule with UUID %(uuid)s already exists.'


class InstanceDeployFailure(IronicLiteException):
    msg_fmt = 'Failed to deploy instance: %(reason)s'


class InstanceRescueFailure(IronicLiteException):
    msg_fmt = 'Failed to rescue instance: %(reason)s'


class ImageNotFound(NotFound):
    msg_fmt = 'Image %(image_id)s could not be found.'


class ImageUnacceptable(Invalid):
    msg_fmt = 'Image %(image_id)s is unacceptable: %(reason)s'


class ImageDownloadFailed(IronicLiteException):
    msg_fmt = 'Failed to download image %(image_href)s, reason: %(reason)s'


class NodeInventoryNotFound(NotFound):
    msg_fmt = 'Node inventory record for node %(node)s could not be found.'


class AgentConnectionFailed(IronicLiteException):
    msg_fmt = 'Cannot reach the agent of node %(node)s: %(reason)s'


class AgentAPIError(IronicLiteException):
    msg_fmt = (
        'Agent command %(command)s on node %(node)s answered '
        'HTTP %(status)s: %(error)s'
    )


#: What the conductor's RPC endpoints declare as expected (answered
#: without a traceback in its log; its clients count them apart from
#: errors, see lite_common.metrics.rpc_client).
RPC_EXPECTED: tuple[type[Exception], ...] = (
    Invalid,
    NotFound,
    Conflict,
    Forbidden,
    NoFreeConductorWorker,
    HardwareError,
    ConductorReplaced,
)
