"""Deploy templates (API 1.55): ``/v1/deploy_templates``.

A template is named by a trait; a node deployed with that trait among
its ``instance_info['traits']`` runs the template's deploy steps
(:mod:`ironic_lite.conductor.deploy_steps`). As upstream: below 1.55 a
GET is a 404 and anything else a 405; a list shows uuid, name and links
unless ``detail`` or ``fields`` asks for more; step arguments are shown
with their secrets masked. Templates are for administrators.
"""

from collections import Counter
import re
from typing import Any
from typing import cast

from oslo_utils import uuidutils
import webob
import webob.exc

from ironic_lite.api import listing
from ironic_lite.api import microversion as mv
from ironic_lite.api import resource_patch
from ironic_lite.api import util
from ironic_lite.api.handlers import node_traits
from ironic_lite.api.schemas import node_states as state_schemas
from ironic_lite.api.schemas import nodes as node_schemas
from ironic_lite.api.views import nodes as node_views
from ironic_lite.db import deploy_templates as db_templates
from lite_common.wsgi import handling

POLICY = 'baremetal:deploy_template:%s'
FIELDS = (
    'uuid',
    'name',
    'steps',
    'extra',
    'created_at',
    'updated_at',
    'links',
)
LIST_FIELDS = ('uuid', 'name', 'links')
LIST_PARAMS = frozenset(
    {'marker', 'limit', 'sort_key', 'sort_dir', 'fields', 'detail'}
)
PATCHABLE = ('extra', 'name', 'steps', 'description')
_NOT_ALLOWED = 'The API version does not allow deploy templates'

STEP = state_schemas.DEPLOY_STEP
TEMPLATE: dict[str, Any] = {
    'type': 'object',
    'properties': {
        'description': {'type': ['string', 'null'], 'maxLength': 255},
        'extra': {'type': ['object', 'null']},
        'name': {'type': 'string', 'minLength': 1, 'maxLength': 255},
        'steps': {'type': 'array', 'items': STEP, 'minItems': 1},
        'uuid': {'type': ['string', 'null']},
    },
    'required': ['steps', 'name'],
    'additionalProperties': False,
}


def _require(req: webob.Request) -> None:
    if util.version(req).below(mv.DEPLOY_TEMPLATES):
        if req.method == 'GET':
            raise webob.exc.HTTPNotFound(explanation=_NOT_ALLOWED)
        raise webob.exc.HTTPMethodNotAllowed(explanation=_NOT_ALLOWED)


def _steps(steps: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [
        {
            'interface': s['interface'],
            'step': s['step'],
            'args': node_views.mask_secrets(s['args'] or {}),
            'priority': s['priority'],
        }
        for s in steps
    ]


def render(
    req: webob.Request, row: dict[str, Any], fields: tuple[str, ...]
) -> dict[str, Any]:
    item: dict[str, Any] = {}
    for name in fields:
        if name == 'links':
            item[name] = util.links_at(
                util.base_url(req), 'deploy_templates', row['uuid']
            )
        elif name in ('created_at', 'updated_at'):
            item[name] = util.isotime(row[name])
        elif name == 'steps':
            item[name] = _steps(row['steps'])
        elif name == 'extra':
            item[name] = row['extra'] or {}
        else:
            item[name] = row[name]
    return item


def _checked(template: dict[str, Any]) -> dict[str, Any]:
    """A template body (created, or patched) as upstream checks it."""
    handling.validate(TEMPLATE, template)
    node_traits.check_trait(template['name'])
    if template.get('uuid') and not uuidutils.is_uuid_like(template['uuid']):
        raise webob.exc.HTTPBadRequest(
            explanation=f'Expected UUID for uuid: {template["uuid"]}'
        )
    counts = Counter((s['interface'], s['step']) for s in template['steps'])
    duplicates = sorted(key for key, count in counts.items() if count > 1)
    if duplicates:
        raise webob.exc.HTTPBadRequest(
            explanation='Duplicate deploy steps. A template cannot have '
            'multiple deploy steps with the same interface and step. '
            'Duplicates: '
            + '; '.join(f'interface: {i}, step: {s}' for i, s in duplicates)
        )
    return {
        'name': template['name'],
        'description': template.get('description'),
        'extra': template.get('extra') or {},
        'steps': [
            {
                'interface': s['interface'],
                'step': s['step'],
                'args': s['args'],
                'priority': int(s['priority']),
            }
            for s in template['steps']
        ],
    }


def _ident(req: webob.Request) -> str:
    ident = req.urlvars['template_ident']
    if uuidutils.is_uuid_like(ident):
        return util.canonical_uuid(ident)
    if not re.match(node_schemas.NAME_PATTERN, ident):
        raise webob.exc.HTTPBadRequest(
            explanation=f'Expected a logical name or UUID but received '
            f'{ident}.'
        )
    return cast(str, ident)


def list_templates(req: webob.Request) -> webob.Response:
    _require(req)
    util.authorize(req, POLICY % 'get')
    listing.check_params(req, LIST_PARAMS)
    fields = listing.list_fields(req, FIELDS, LIST_FIELDS)
    sort_key = listing.sort_key(req, db_templates.UNSORTABLE)
    limit = listing.page_limit(req)
    rows = db_templates.list_page(
        util.context(req),
        limit=limit,
        marker=listing.marker(req),
        sort_key=sort_key,
        sort_dir=req.GET.get('sort_dir', 'asc'),
    )
    return util.json_response(
        listing.page_body(
            req,
            'deploy_templates',
            rows,
            lambda row: render(req, row, fields),
            limit,
        )
    )


def show_template(req: webob.Request) -> webob.Response:
    _require(req)
    util.authorize(req, POLICY % 'get')
    listing.check_params(req, frozenset({'fields'}))
    row = db_templates.get(util.context(req), _ident(req))
    fields = listing.shown_fields(req, FIELDS)
    return util.json_response(render(req, row, fields))


def create_template(req: webob.Request) -> webob.Response:
    _require(req)
    util.authorize(req, POLICY % 'create')
    body = util.read_body(req, TEMPLATE)
    values = _checked(body)
    values['uuid'] = (
        util.canonical_uuid(body['uuid'])
        if body.get('uuid')
        else uuidutils.generate_uuid()
    )
    row = db_templates.create(util.context(req), values)
    location = f'{util.base_url(req)}/v1/deploy_templates/{row["uuid"]}'
    return util.json_response(
        render(req, row, FIELDS), status=201, headers={'Location': location}
    )


def update_template(req: webob.Request) -> webob.Response:
    _require(req)
    util.authorize(req, POLICY % 'update')
    patch = util.read_body(req, node_schemas.PATCH)
    resource_patch.check_allowed(patch, PATCHABLE)
    row = db_templates.get(util.context(req), _ident(req))
    document = {
        'name': row['name'],
        'description': row['description'],
        'extra': row['extra'] or {},
        'steps': [dict(s) for s in row['steps']],
    }
    document = resource_patch.apply_patch(document, patch)
    values = _checked(document)
    row = db_templates.update(util.context(req), row['id'], values)
    return util.json_response(render(req, row, FIELDS))


def delete_template(req: webob.Request) -> webob.Response:
    _require(req)
    util.authorize(req, POLICY % 'delete')
    db_templates.destroy(util.context(req), _ident(req))
    return webob.Response(status=204)
