"""Keystone's content for the all-in-one, made so at every start (runs
in the Keystone process: :mod:`stacklite.identity_server`).

``keystone-manage bootstrap`` (upstream's ``Bootstrapper``) makes the
default domain, the ``admin`` project and user, the roles (``reader``
implied by ``member``, by ``manager``, by ``admin``; ``service``), the
admin's role on its project and on the system (the Bare Metal API's
administrators are system-scoped), the region and the identity
endpoints. What it does not make is added here the same way: the other
projects and users with their roles, and the other services'
endpoints. Existing records are kept; a user's password is set when it
is created (the passwords file is written once, see
:mod:`stacklite.identity`).
"""

from typing import Any
import uuid

from oslo_log import log as logging

LOG = logging.getLogger(__name__)

#: Every endpoint is registered on these interfaces: clients use
#: ``public``, keystonemiddleware and service clients ``internal``.
INTERFACES = ('public', 'internal', 'admin')


def _providers() -> Any:
    from keystone.common import provider_api

    return provider_api.ProviderAPIs


def _bootstrap_admin(plan: dict[str, Any]) -> str:
    """Upstream's bootstrap; the default domain's id."""
    from keystone.cmd import bootstrap

    admin = bootstrap.Bootstrapper()  # loads Keystone's managers
    admin.admin_username = 'admin'
    admin.admin_password = plan['admin_password']
    admin.project_name = 'admin'
    admin.admin_role_name = 'admin'
    admin.service_name = 'keystone'
    admin.region_id = plan['region']
    admin.public_url = admin.internal_url = admin.admin_url = plan[
        'identity_url'
    ]
    admin.immutable_roles = True
    admin.bootstrap()
    return str(admin.default_domain_id)


def _project(name: str, domain_id: str) -> str:
    from keystone import exception

    resource = _providers().resource_api
    try:
        return str(resource.get_project_by_name(name, domain_id)['id'])
    except exception.ProjectNotFound:
        project_id = uuid.uuid4().hex
        resource.create_project(
            project_id,
            {
                'id': project_id,
                'name': name,
                'domain_id': domain_id,
                'enabled': True,
                'description': 'stacklite all-in-one',
            },
        )
        LOG.info('Created project %s', name)
        return project_id


def _user(name: str, password: str, domain_id: str, new_password: bool) -> str:
    """The user's id; created with ``password`` if missing; given it if
    it is ``new_password`` (the passwords file lost it)."""
    from keystone import exception

    identity = _providers().identity_api
    try:
        user_id = str(identity.get_user_by_name(name, domain_id)['id'])
    except exception.UserNotFound:
        user = identity.create_user(
            {
                'name': name,
                'domain_id': domain_id,
                'enabled': True,
                'password': password,
            }
        )
        LOG.info('Created user %s', name)
        return str(user['id'])
    if new_password:
        identity.update_user(user_id, {'password': password})
        LOG.warning(
            'Set a new password for user %s (it was not in the '
            'passwords file)',
            name,
        )
    return user_id


def _role_ids() -> dict[str, str]:
    return {
        role['name']: role['id']
        for role in _providers().role_api.list_roles()
        if role.get('domain_id') is None
    }


def _grant(user_id: str, project_id: str, role_id: str) -> None:
    from keystone import exception

    try:
        _providers().assignment_api.add_role_to_user_and_project(
            user_id=user_id, project_id=project_id, role_id=role_id
        )
    except exception.Conflict:
        pass


def _service(service_type: str, name: str) -> str:
    from keystone.common import driver_hints

    catalog = _providers().catalog_api
    hints = driver_hints.Hints()
    hints.add_filter('type', service_type)
    services = catalog.list_services(hints)
    if services:
        return str(services[0]['id'])
    service_id = uuid.uuid4().hex
    catalog.create_service(
        service_id,
        {
            'id': service_id,
            'type': service_type,
            'name': name,
            'enabled': True,
        },
    )
    LOG.info('Created service %s (%s)', name, service_type)
    return service_id


def _endpoints(service_id: str, url: str, region: str) -> None:
    """One endpoint per interface, at ``url`` (updated if it moved)."""
    from keystone.common import driver_hints

    catalog = _providers().catalog_api
    hints = driver_hints.Hints()
    hints.add_filter('service_id', service_id)
    existing = {e['interface']: e for e in catalog.list_endpoints(hints)}
    for interface in INTERFACES:
        endpoint = existing.get(interface)
        if endpoint is None:
            endpoint_id = uuid.uuid4().hex
            catalog.create_endpoint(
                endpoint_id,
                {
                    'id': endpoint_id,
                    'service_id': service_id,
                    'interface': interface,
                    'url': url,
                    'region_id': region,
                    'enabled': True,
                },
            )
        elif endpoint['url'] != url:
            catalog.update_endpoint(endpoint['id'], {'url': url})
            LOG.info(
                'Endpoint %s (%s) moved to %s', service_id, interface, url
            )


def apply(plan: dict[str, Any]) -> None:
    """Make Keystone hold what ``plan`` says (see
    :func:`stacklite.identity.bootstrap_plan`)."""
    domain_id = _bootstrap_admin(plan)
    roles = _role_ids()
    for user in plan['users']:
        user_id = _user(
            user['name'], user['password'], domain_id, user['new_password']
        )
        project_id = _project(user['project'], domain_id)
        for role in user['roles']:
            _grant(user_id, project_id, roles[role])
    for service_type, entry in plan['endpoints'].items():
        _endpoints(
            _service(service_type, entry['name']), entry['url'], plan['region']
        )
