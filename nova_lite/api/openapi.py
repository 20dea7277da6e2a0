"""The OpenAPI document of the Compute API, from the route table, the
request schemas and what :mod:`nova_lite.api.described` says of each
operation (query parameters, success bodies); ``python -m
nova_lite.api.openapi`` prints it; it is served at ``/openapi.json`` and
checked into ``doc/source/api/openapi/compute.json``.

Request bodies are those of the newest microversion; every operation
takes the microversion header, with the versions of its range (the
route table's :class:`~lite_common.wsgi.router.Versioned`). The Image
API has its own document (:mod:`nova_lite.api.image_openapi`); the
``/v2.1/{project_id}/...`` aliases are left out.
"""

from typing import Any

from lite_common.wsgi import microversion as mv
from lite_common.wsgi import openapi
from nova_lite.api import described
from nova_lite.api import errors
from nova_lite.api import microversion
from nova_lite.api.handlers import aggregate_images
from nova_lite.api.handlers import aggregates
from nova_lite.api.handlers import consoles
from nova_lite.api.handlers import flavor_access
from nova_lite.api.handlers import flavor_extra_specs
from nova_lite.api.handlers import flavors
from nova_lite.api.handlers import keypairs
from nova_lite.api.handlers import quota_classes
from nova_lite.api.handlers import quota_sets
from nova_lite.api.handlers import server_actions
from nova_lite.api.handlers import server_external_events
from nova_lite.api.handlers import server_groups
from nova_lite.api.handlers import server_metadata
from nova_lite.api.handlers import server_shares
from nova_lite.api.handlers import server_tags
from nova_lite.api.handlers import servers
from nova_lite.api.handlers import services
from nova_lite.api.handlers import volume_attachment_update
from nova_lite.api.schemas import aggregates as aggregate_schemas
from nova_lite.api.schemas import flavors as flavor_schemas
from nova_lite.api.schemas import keypairs as keypair_schemas
from nova_lite.api.schemas import quota_sets as quota_schemas
from nova_lite.api.schemas import remote_consoles as console_schemas
from nova_lite.api.schemas import server_actions as action_schemas
from nova_lite.api.schemas import server_external_events as event_schemas
from nova_lite.api.schemas import server_groups as group_schemas
from nova_lite.api.schemas import server_shares as share_schemas
from nova_lite.api.schemas import servers as server_schemas
from nova_lite.api.schemas import services as service_schemas

PATH = '/openapi.json'
HEADER = openapi.MicroversionHeader(
    'OpenStack-API-Version',
    'compute ',
    microversion.MIN_VERSION,
    microversion.MAX_VERSION,
)

#: One property per fault name, each ``{code, message}``.
ERROR_SCHEMA: dict[str, Any] = {
    'type': 'object',
    'minProperties': 1,
    'maxProperties': 1,
    'additionalProperties': {
        'type': 'object',
        'properties': {
            'code': {'type': 'integer'},
            'message': {'type': 'string'},
        },
        'required': ['code', 'message'],
    },
}


def bodies() -> openapi.Bodies:
    latest = mv.APIVersion.parse(microversion.MAX_VERSION)
    return {
        servers.create_server: server_schemas.create(latest),
        servers.update_server: server_schemas.update(latest),
        server_actions.server_action: {
            'oneOf': [
                action_schemas.evacuate_v268,
                action_schemas.migrate_v256,
                action_schemas.resize,
                action_schemas.confirm_resize,
                action_schemas.revert_resize,
                action_schemas.reset_state,
                action_schemas.stop,
                action_schemas.start,
                action_schemas.reboot,
                action_schemas.lock_v273,
                action_schemas.unlock,
                action_schemas.restore,
                action_schemas.force_delete,
                action_schemas.unshelve_v277,
                console_schemas.CONSOLE_OUTPUT,
            ]
        },
        flavors.create_flavor: flavor_schemas.create_for(latest),
        keypairs.create_keypair: keypair_schemas.create_for(latest),
        server_metadata.merge_metadata: server_metadata.METADATA_BODY,
        server_metadata.replace_metadata: server_metadata.METADATA_BODY,
        server_metadata.set_item: server_metadata.META_BODY,
        server_tags.replace_tags: server_tags.TAGS_BODY,
        flavors.update_flavor: flavor_schemas.update,
        flavor_extra_specs.create_specs: flavor_extra_specs.CREATE_BODY,
        flavor_access.flavor_action: flavor_access.ACTION_BODY,
        flavor_extra_specs.update_spec: flavor_extra_specs.UPDATE_BODY,
        services.update_service: service_schemas.update_v253,
        services.legacy_service_action: (
            service_schemas.documented_legacy_update
        ),
        server_external_events.create_events: event_schemas.create_for(latest),
        quota_classes.update_quota_class: quota_schemas.update_class(
            quota_classes.resources_at(latest)
        ),
        quota_sets.update_quota_set: quota_schemas.update(
            quota_sets.resources_at(latest)
        ),
        aggregates.create_aggregate: aggregate_schemas.create,
        aggregates.update_aggregate: aggregate_schemas.update,
        aggregates.aggregate_action: aggregate_schemas.action,
        aggregate_images.cache_images: aggregate_schemas.images,
        server_groups.create_server_group: group_schemas.create(latest),
        volume_attachment_update.update_attachment: (
            volume_attachment_update.UPDATE_V285
        ),
        server_shares.attach_share: share_schemas.create,
        consoles.create_remote_console: console_schemas.create(latest),
    }


def compute_path(path: str) -> bool:
    return not (
        path.startswith('/image') or path.startswith('/v2.1/{project_id}')
    )


#: Path parameters the handlers parse (else a 400): the route table
#: only says they are text.
PATH_PARAMETERS: dict[str, dict[str, Any]] = {
    'aggregate_id': {'type': 'string', 'pattern': '^[0-9]{1,10}$'},
    # An integer until 2.52, a uuid from 2.53.
    'service_id': {
        'type': 'string',
        'pattern': '^([0-9]{1,18}|[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-'
        '[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-'
        '[0-9a-fA-F]{12})$',
    },
    # ``%Y-%m-%d %H:%M:%S[.%f]``.
    'before_timestamp': {
        'type': 'string',
        'pattern': '^[0-9]{4}-(0[1-9]|1[0-2])-(0[1-9]|1[0-9]|2[0-8]) '
        '([01][0-9]|2[0-3]):[0-5][0-9]:[0-5][0-9]'
        '([.][0-9]{1,6})?$',
    },
}


def _path_parameters(doc: dict[str, Any]) -> None:
    for item in doc['paths'].values():
        for parameter in item.get('parameters', ()):
            schema = PATH_PARAMETERS.get(parameter['name'])
            if schema is not None:
                parameter['schema'] = dict(schema)


def document() -> dict[str, Any]:
    from nova_lite.api import routes

    doc = openapi.document(
        'nova_lite Compute API',
        microversion.MAX_VERSION,
        routes.COMPUTE_ROUTES,
        bodies(),
        ERROR_SCHEMA,
        compute_path,
        descriptions=described.descriptions(),
        microversion=HEADER,
    )
    _path_parameters(doc)
    return doc


def error_format_ok(body: Any) -> bool:
    """Whether ``body`` is an error in this API's format."""
    if not isinstance(body, dict) or len(body) != 1:
        return False
    ((name, inner),) = body.items()
    return (
        name in set(errors.FAULT_NAMES.values()) | {'computeFault'}
        and isinstance(inner, dict)
        and isinstance(inner.get('code'), int)
        and isinstance(inner.get('message'), str)
    )


if __name__ == '__main__':
    print(openapi.dumps(document()), end='')
