"""The personas of neutron_lite's policies (upstream Neutron's secure
RBAC defaults): a project's admin, member and reader, the ``service``
role (nova and ironic's service users bind ports), and the owner of the
network a subnet or port is on.

Administrators are project-scoped ``admin`` (``context_is_admin``), as
Neutron's: the Networking API has no system scope.
"""

ADMIN = 'rule:context_is_admin'
SERVICE = 'role:service'
PROJECT_MEMBER = 'role:member and project_id:%(project_id)s'
PROJECT_READER = 'role:reader and project_id:%(project_id)s'
NET_OWNER_MEMBER = 'role:member and project_id:%(network:project_id)s'
NET_OWNER_READER = 'role:reader and project_id:%(network:project_id)s'
#: A target on a shared network, or an external one (the target
#: carries its network's ``network:shared`` and
#: ``network:router:external``).
SHARED = 'True:%(network:shared)s'
EXTERNAL = 'True:%(network:router:external)s'


def any_of(*checks: str) -> str:
    return ' or '.join(f'({check})' for check in checks)


ADMIN_OR_MEMBER = any_of(ADMIN, PROJECT_MEMBER)
ADMIN_OR_READER = any_of(ADMIN, PROJECT_READER)
ADMIN_OR_SERVICE = any_of(ADMIN, SERVICE)
