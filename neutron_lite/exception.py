"""neutron_lite's exceptions: a message, the HTTP status it becomes and
the ``type`` of Neutron's error body (the class name, as Neutron's).

They carry no HTTP knowledge beyond ``code``; the API turns them into
``{"NeutronError": {"type", "message", "detail"}}``
(:mod:`neutron_lite.api.errors`).
"""

from typing import Any


class NeutronLiteException(Exception):
    """Base: ``message`` is formatted with the keyword arguments."""

    message = 'An unknown exception occurred.'
    code = 500

    def __init__(self, **kwargs: Any) -> None:
        self.kwargs = kwargs
        try:
            text = self.message % kwargs
        except (KeyError, TypeError, ValueError):
            text = self.message
        super().__init__(text)

    @property
    def type_name(self) -> str:
        """The ``type`` of Neutron's error body."""
        return type(self).__name__


class ConfigError(NeutronLiteException):
    message = 'Invalid configuration: %(reason)s'


class BadRequest(NeutronLiteException):
    message = 'Bad %(resource)s request: %(msg)s.'
    code = 400


class HTTPBadRequest(NeutronLiteException):
    """A body the API layer refuses (Neutron raises webob's)."""

    message = '%(msg)s'
    code = 400


class InvalidInput(NeutronLiteException):
    message = 'Invalid input for operation: %(error_message)s.'
    code = 400


class NotFound(NeutronLiteException):
    code = 404


class NetworkNotFound(NotFound):
    message = 'Network %(net_id)s could not be found.'


class SubnetNotFound(NotFound):
    message = 'Subnet %(subnet_id)s could not be found.'


class PortNotFound(NotFound):
    message = 'Port %(port_id)s could not be found.'


class ExtensionNotFound(NotFound):
    message = 'Extension with alias %(alias)s does not exist'


class MarkerNotFound(NotFound):
    message = 'Marker %(marker)s could not be found.'

    @property
    def type_name(self) -> str:
        return 'NotFound'


class TagNotFound(NotFound):
    message = (
        'Tag %(tag)s could not be found for %(resource)s %(resource_id)s.'
    )


class Conflict(NeutronLiteException):
    code = 409


class FlatNetworkInUse(Conflict):
    message = (
        'Unable to create the flat network. Physical network '
        '%(physical_network)s is in use.'
    )


class VlanIdInUse(Conflict):
    message = (
        'Unable to create the network. The VLAN %(vlan_id)s on physical '
        'network %(physical_network)s is in use.'
    )


class NetworkInUse(Conflict):
    message = (
        'Unable to complete operation on network %(net_id)s. There are one '
        'or more ports still in use on the network.'
    )


class SubnetInUse(Conflict):
    message = (
        'Unable to complete operation on subnet %(subnet_id)s: One or more '
        'ports have an IP allocation from this subnet.'
    )


class IpAddressAlreadyAllocated(Conflict):
    message = 'IP address %(ip)s already allocated in subnet %(subnet_id)s'


class IpAddressGenerationFailure(Conflict):
    message = 'No more IP addresses available on network %(net_id)s.'


class MacAddressGenerationFailure(NeutronLiteException):
    message = 'Unable to generate unique mac on network %(net_id)s.'
    code = 503


class MacAddressInUse(Conflict):
    message = (
        'Unable to complete operation for network %(net_id)s. The mac '
        'address %(mac)s is in use.'
    )


class InvalidIpForSubnet(BadRequest):
    message = (
        'IP address %(ip_address)s is not a valid IP for the specified subnet.'
    )

    @property
    def type_name(self) -> str:
        return 'InvalidIpForSubnet'


class InvalidIpForNetwork(BadRequest):
    message = (
        'IP address %(ip_address)s is not a valid IP for any of the '
        'subnets on the specified network.'
    )

    @property
    def type_name(self) -> str:
        return 'InvalidIpForNetwork'


class OverlappingCidr(BadRequest):
    message = (
        'Invalid input for operation: Requested subnet with cidr: %(cidr)s '
        'for network: %(net_id)s overlaps with another subnet.'
    )

    @property
    def type_name(self) -> str:
        return 'InvalidInput'


class RevisionNumberConstraintFailed(NeutronLiteException):
    message = (
        'Constrained to %(expected)s, but current revision is %(current)s'
    )
    code = 412


class PolicyNotAuthorized(NeutronLiteException):
    #: ``rule``: the rules checked, as Neutron names them
    #: (``rule:create_network``, ``(rule:a and rule:a:b)``).
    message = '%(rule)s is disallowed by policy'
    code = 403


class SecurityGroupNotFound(NotFound):
    message = 'Security group %(id)s does not exist'


class SecurityGroupRuleNotFound(NotFound):
    message = 'Security group rule %(id)s does not exist'


class SecurityGroupRuleExists(Conflict):
    message = 'Security group rule already exists. Rule id is %(rule_id)s.'


class SecurityGroupInUse(Conflict):
    message = 'Security Group %(id)s in use.'


class SecurityGroupCannotRemoveDefault(Conflict):
    message = 'Insufficient rights for removing default security group.'


class SecurityGroupCannotUpdateDefault(Conflict):
    message = 'Updating default security group not allowed.'


class SecurityGroupDefaultAlreadyExists(Conflict):
    message = 'Default security group already exists.'


class SecurityGroupInvalidPortRange(NeutronLiteException):
    message = '%(msg)s'
    code = 400


class SecurityGroupInvalidPortValue(NeutronLiteException):
    message = 'Invalid value for port %(port)s.'
    code = 400


class SecurityGroupInvalidIcmpValue(NeutronLiteException):
    message = (
        'Invalid value for ICMP %(field)s (%(attr)s) %(value)s. It must be '
        '0 to 255.'
    )
    code = 400


class SecurityGroupRuleInvalidProtocol(NeutronLiteException):
    message = (
        'Security group rule protocol %(protocol)s not supported. Only '
        'protocol values %(values)s and integer representations [0 to '
        '255] are supported.'
    )
    code = 400


class SecurityGroupRemoteGroupAndRemoteIpPrefix(NeutronLiteException):
    message = 'Only remote_ip_prefix or remote_group_id may be provided.'
    code = 400


class SecurityGroupRuleParameterConflict(NeutronLiteException):
    message = 'Conflicting value ethertype %(ethertype)s for CIDR %(cidr)s'
    code = 400


class PortSecurityAndIPRequiredForSecurityGroups(NeutronLiteException):
    message = (
        'Port security must be enabled and port must have an IP address '
        'in order to use security groups.'
    )
    code = 400


class OverQuota(Conflict):
    message = 'Quota exceeded for resources: %(overs)s.'
