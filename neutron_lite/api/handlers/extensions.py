"""``/v2.0/extensions``: exactly the API extensions served, by the
aliases of neutron-lib's definitions (clients decide what to send from
this list: an alias listed here is implemented in full)."""

import webob

from neutron_lite import exception
from neutron_lite.api import util

#: alias -> (name, description).
EXTENSIONS: dict[str, tuple[str, str]] = {
    'binding': (
        'Port Binding',
        'Expose port bindings of a virtual port to external application',
    ),
    'external-net': (
        'Neutron external network',
        'Adds external network attribute to network resource.',
    ),
    'fields': (
        'Fields',
        'Fields in GET requests select what an answer holds.',
    ),
    'filter-validation': (
        'Filter parameters validation',
        'Provides validation on filter parameters.',
    ),
    'l2_adjacency': (
        'L2 Adjacency',
        'Display whether the network has L2 adjacency.',
    ),
    'net-mtu': (
        'Network MTU',
        'Provides MTU attribute for a network resource.',
    ),
    'net-mtu-writable': (
        'Network MTU (writable)',
        'Provides a writable MTU attribute for a network resource.',
    ),
    'pagination': (
        'Pagination support',
        'Extension that indicates that pagination is enabled.',
    ),
    'port-security': ('Port Security', 'Provides port security'),
    'project-id': (
        'project_id field enabled',
        'Extension that indicates that project_id field is enabled.',
    ),
    'provider': (
        'Provider Network',
        'Expose mapping of virtual networks to physical networks',
    ),
    'revision-if-match': (
        'If-Match constraints based on revision_number',
        (
            'Extension indicating that If-Match based on revision_number is '
            'supported.'
        ),
    ),
    'quotas': (
        'Quota management support',
        'Expose functions for quotas management per project',
    ),
    'quota_details': (
        'Quota details management support',
        'Expose functions for quotas usage statistics per project',
    ),
    'security-group': (
        'security-group',
        'The security groups extension.',
    ),
    'sorting': (
        'Sorting support',
        'Extension that indicates that sorting is enabled.',
    ),
    'standard-attr-description': (
        'standard-attr-description',
        'Extension to add descriptions to standard attributes',
    ),
    'standard-attr-revisions': (
        'Resource revision numbers',
        (
            'This extension will display the revision number of neutron '
            'resources.'
        ),
    ),
    'standard-attr-tag': (
        (
            'Tag support for resources with standard attribute: subnet, port '
            'and network'
        ),
        'Enables to set tag on resources with standard attribute.',
    ),
    'standard-attr-timestamp': (
        'Resource timestamps',
        (
            'Adds created_at and updated_at fields to all Neutron resources '
            'that have Neutron standard attributes.'
        ),
    ),
}
UPDATED = '2025-01-01T00:00:00-00:00'


def _one(alias: str) -> dict[str, object]:
    name, description = EXTENSIONS[alias]
    return {
        'alias': alias,
        'name': name,
        'description': description,
        'updated': UPDATED,
        'links': [],
    }


def list_extensions(req: webob.Request) -> webob.Response:
    return util.json_response(
        {'extensions': [_one(alias) for alias in sorted(EXTENSIONS)]}
    )


def show_extension(req: webob.Request) -> webob.Response:
    alias = req.urlvars['alias']
    if alias not in EXTENSIONS:
        raise exception.ExtensionNotFound(alias=alias)
    return util.json_response({'extension': _one(alias)})
