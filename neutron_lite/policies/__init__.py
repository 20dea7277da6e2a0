"""Every default policy of neutron_lite, by resource (Neutron's names:
``create_network``, ``get_port:binding:host_id`` ...). An attribute
rule (``<action>:<attribute>``) decides who may set or read that
attribute; the resource rule, who may act at all."""

from oslo_policy import policy

from neutron_lite.policies import base as b


def _rule(name: str, check: str, description: str) -> policy.RuleDefault:
    return policy.RuleDefault(name, check, description=description)


def _crud(
    resource: str,
    create: str,
    get: str,
    update: str,
    delete: str,
) -> list[policy.RuleDefault]:
    return [
        _rule(f'create_{resource}', create, f'Create a {resource}.'),
        _rule(f'get_{resource}', get, f'Show or list {resource}s.'),
        _rule(f'update_{resource}', update, f'Update a {resource}.'),
        _rule(f'delete_{resource}', delete, f'Delete a {resource}.'),
    ]


def _attribute(
    resource: str, attribute: str, check: str, actions: tuple[str, ...]
) -> list[policy.RuleDefault]:
    return [
        _rule(
            f'{action}_{resource}:{attribute}',
            check,
            f'{action.capitalize()} the {attribute} attribute of a '
            f'{resource}.',
        )
        for action in actions
    ]


_SET = ('create', 'update')
_ALL = ('create', 'get', 'update')


def _network() -> list[policy.RuleDefault]:
    rules = _crud(
        'network',
        b.ADMIN_OR_MEMBER,
        b.any_of(b.ADMIN, b.PROJECT_READER, b.SHARED, b.EXTERNAL),
        b.ADMIN_OR_MEMBER,
        b.ADMIN_OR_MEMBER,
    )
    rules += _attribute('network', 'shared', b.ADMIN, _SET)
    rules += _attribute('network', 'router:external', b.ADMIN, _SET)
    for attribute in (
        'provider:network_type',
        'provider:physical_network',
        'provider:segmentation_id',
    ):
        rules += _attribute('network', attribute, b.ADMIN, _ALL)
    return rules


def _subnet() -> list[policy.RuleDefault]:
    return _crud(
        'subnet',
        b.any_of(b.ADMIN, b.NET_OWNER_MEMBER),
        b.any_of(b.ADMIN, b.PROJECT_READER, b.NET_OWNER_READER, b.SHARED),
        b.any_of(b.ADMIN, b.NET_OWNER_MEMBER),
        b.any_of(b.ADMIN, b.NET_OWNER_MEMBER),
    )


def _port() -> list[policy.RuleDefault]:
    member = b.any_of(b.ADMIN, b.PROJECT_MEMBER, b.NET_OWNER_MEMBER, b.SERVICE)
    rules = _crud(
        'port',
        b.any_of(b.ADMIN, b.PROJECT_MEMBER, b.SERVICE),
        b.any_of(b.ADMIN, b.PROJECT_READER, b.NET_OWNER_READER, b.SERVICE),
        member,
        member,
    )
    owner = b.any_of(b.ADMIN, b.NET_OWNER_MEMBER, b.SERVICE)
    rules += _attribute('port', 'mac_address', owner, _SET)
    rules += _attribute('port', 'fixed_ips:ip_address', owner, _SET)
    for attribute in ('binding:host_id', 'binding:profile'):
        rules += _attribute('port', attribute, b.ADMIN_OR_SERVICE, _ALL)
    for attribute in ('binding:vif_type', 'binding:vif_details'):
        rules += _attribute('port', attribute, b.ADMIN_OR_SERVICE, ('get',))
    return rules


def _security_group() -> list[policy.RuleDefault]:
    group_owner_member = (
        'role:member and project_id:%(security_group:project_id)s'
    )
    group_owner_reader = (
        'role:reader and project_id:%(security_group:project_id)s'
    )
    rules = _crud(
        'security_group',
        b.ADMIN_OR_MEMBER,
        b.ADMIN_OR_READER,
        b.ADMIN_OR_MEMBER,
        b.ADMIN_OR_MEMBER,
    )
    rules += [
        _rule(
            'create_security_group_rule',
            b.any_of(b.ADMIN, group_owner_member),
            'Create a rule in a security group.',
        ),
        _rule(
            'get_security_group_rule',
            b.any_of(b.ADMIN, b.PROJECT_READER, group_owner_reader),
            'Show or list security group rules.',
        ),
        _rule(
            'delete_security_group_rule',
            b.any_of(b.ADMIN, b.PROJECT_MEMBER, group_owner_member),
            'Delete a security group rule.',
        ),
    ]
    return rules


def list_rules() -> list[policy.RuleDefault]:
    return [
        _rule('context_is_admin', 'role:admin', 'Who is an administrator.'),
        _rule('admin_only', b.ADMIN, 'Administrators (for policy files).'),
        *_network(),
        *_subnet(),
        *_port(),
        *_security_group(),
        _rule(
            'get_quota',
            b.any_of(b.ADMIN, b.PROJECT_READER),
            "Show a project's quotas (list them: administrators).",
        ),
        _rule('update_quota', b.ADMIN, "Set a project's quotas."),
        _rule('delete_quota', b.ADMIN, "Reset a project's quotas."),
    ]
