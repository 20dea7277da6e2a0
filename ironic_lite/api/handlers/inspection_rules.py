"""Inspection rules (API 1.96): ``/v1/inspection_rules``.

A rule's conditions are checked against the data an inspection brought
back and, when they all hold, its actions change the node
(:mod:`ironic_lite.inspection_rules`). As upstream: below 1.96 a GET is a
404 and anything else a 405; a list shows uuid, priority, phase,
description and links unless ``detail`` or ``fields`` asks for more; a
``sensitive`` rule is shown without its conditions and actions (null),
and cannot be made not sensitive again. Rules are for the system's
administrators.

Where upstream Ironic 39 answers a 500 (a plugin's missing argument, a
uuid that is not one, showing a sensitive rule just created), ironic_lite
answers what the request deserves (400, or the rule); its links point
at ``/v1/inspection_rules`` (upstream's at ``/v1/inspection``), its
``phase`` filter filters (upstream's is ignored), and a rule's uuid
cannot be patched.
"""

from typing import Any

from oslo_utils import uuidutils
import webob
import webob.exc

from ironic_lite import exception
from ironic_lite.api import listing
from ironic_lite.api import microversion as mv
from ironic_lite.api import resource_patch
from ironic_lite.api import util
from ironic_lite.api.schemas import nodes as node_schemas
from ironic_lite.db import inspection_rules as db_rules
from ironic_lite.inspection_rules import validation
from lite_common.wsgi import handling

POLICY = 'baremetal:inspection_rule:%s'
FIELDS = (
    'uuid',
    'created_at',
    'updated_at',
    'description',
    'priority',
    'sensitive',
    'phase',
    'conditions',
    'actions',
    'links',
)
LIST_FIELDS = ('uuid', 'priority', 'phase', 'description', 'links')
LIST_PARAMS = frozenset(
    {'marker', 'limit', 'sort_key', 'sort_dir', 'fields', 'detail', 'phase'}
)
#: What a patch document holds (uuid is refused: see the docstring).
PATCHABLE = (
    'description',
    'priority',
    'sensitive',
    'phase',
    'conditions',
    'actions',
)
_NOT_ALLOWED = 'The API version does not allow inspection rules'


def _require(req: webob.Request) -> None:
    if util.version(req).below(mv.INSPECTION_RULES):
        if req.method == 'GET':
            raise webob.exc.HTTPNotFound(explanation=_NOT_ALLOWED)
        raise webob.exc.HTTPMethodNotAllowed(explanation=_NOT_ALLOWED)


def _actions(actions: list[dict[str, Any]]) -> list[dict[str, Any]]:
    shown = []
    for action in actions:
        item = {'op': action['op'], 'args': action['args']}
        if action.get('loop'):
            item['loop'] = action['loop']
        shown.append(item)
    return shown


def _conditions(conditions: list[dict[str, Any]]) -> list[dict[str, Any]]:
    shown = []
    for condition in conditions:
        item = {'op': condition['op'], 'args': condition['args']}
        if condition.get('loop'):
            # Upstream shows "multiple" only with a loop.
            item['loop'] = condition['loop']
            item['multiple'] = condition.get('multiple', 'any')
        shown.append(item)
    return shown


def render(
    req: webob.Request, row: dict[str, Any], fields: tuple[str, ...]
) -> dict[str, Any]:
    item: dict[str, Any] = {}
    for name in fields:
        if name == 'links':
            item[name] = util.links_at(
                util.base_url(req), 'inspection_rules', row['uuid']
            )
        elif name in ('created_at', 'updated_at'):
            item[name] = util.isotime(row[name])
        elif name in ('conditions', 'actions') and row['sensitive']:
            item[name] = None
        elif name == 'conditions':
            item[name] = _conditions(row['conditions'] or [])
        elif name == 'actions':
            item[name] = _actions(row['actions'])
        else:
            item[name] = row[name]
    return item


def _ident(req: webob.Request) -> str:
    ident = req.urlvars['rule_id']
    if not uuidutils.is_uuid_like(ident):
        raise webob.exc.HTTPBadRequest(
            explanation=f"Schema error: '{ident}' is not a 'uuid'"
        )
    return util.canonical_uuid(ident)


def _checked(rule: dict[str, Any]) -> dict[str, Any]:
    """The columns of a rule body (created, or patched) that passed
    upstream's checks."""
    try:
        validation.validate_rule(rule)
    except exception.Invalid as exc:
        raise webob.exc.HTTPBadRequest(explanation=exc.format_message())
    return {
        'description': rule.get('description'),
        'priority': rule.get('priority', 0),
        'sensitive': bool(rule.get('sensitive')),
        'phase': rule.get('phase') or 'main',
        'conditions': rule.get('conditions') or [],
        'actions': rule['actions'],
    }


def list_rules(req: webob.Request) -> webob.Response:
    _require(req)
    util.authorize(req, POLICY % 'get')
    listing.check_params(req, LIST_PARAMS)
    fields = listing.list_fields(req, FIELDS, LIST_FIELDS)
    sort_key = listing.sort_key(req, db_rules.UNSORTABLE)
    limit = listing.page_limit(req)
    rows = db_rules.list_page(
        util.context(req),
        limit=limit,
        marker=listing.marker(req),
        sort_key=sort_key,
        sort_dir=req.GET.get('sort_dir', 'asc'),
        phase=req.GET.get('phase') or None,
    )
    return util.json_response(
        listing.page_body(
            req,
            'inspection_rules',
            rows,
            lambda row: render(req, row, fields),
            limit,
        )
    )


def show_rule(req: webob.Request) -> webob.Response:
    _require(req)
    ident = _ident(req)
    listing.check_params(req, frozenset({'fields'}))
    util.authorize(req, POLICY % 'get')
    row = db_rules.get(util.context(req), ident)
    fields = listing.shown_fields(req, FIELDS)
    return util.json_response(render(req, row, fields))


def create_rule(req: webob.Request) -> webob.Response:
    _require(req)
    body = util.read_body(req, validation.RULE_SCHEMA)
    util.authorize(req, POLICY % 'create')
    values = _checked(body)
    if body.get('uuid'):
        values['uuid'] = listing.uuid_arg('uuid', body['uuid'])
    row = db_rules.create(util.context(req), values)
    location = f'{util.base_url(req)}/v1/inspection_rules/{row["uuid"]}'
    return util.json_response(
        render(req, row, FIELDS), status=201, headers={'Location': location}
    )


def update_rule(req: webob.Request) -> webob.Response:
    _require(req)
    ident = _ident(req)
    patch = util.read_body(req, node_schemas.PATCH)
    util.authorize(req, POLICY % 'update')
    row = db_rules.get(util.context(req), ident)
    sensitive = resource_patch.patch_values(patch, '/sensitive')
    if (
        row['sensitive']
        and sensitive
        and not sensitive[0]
        and sensitive[0] is not None
    ):
        raise webob.exc.HTTPBadRequest(
            explanation=f"Couldn't apply patch '{patch}'. Reason: "
            'Inspection rules cannot have the sensitive flag unset.'
        )
    if any(op['path'].split('/')[1] == 'uuid' for op in patch):
        raise webob.exc.HTTPBadRequest(
            explanation='The uuid of an inspection rule cannot be changed.'
        )
    document = {name: row[name] for name in PATCHABLE}
    document['conditions'] = document['conditions'] or []
    document = resource_patch.apply_patch(document, patch)
    handling.validate(validation.RULE_SCHEMA, document)
    row = db_rules.update(util.context(req), row['id'], _checked(document))
    return util.json_response(render(req, row, FIELDS))


def delete_rule(req: webob.Request) -> webob.Response:
    _require(req)
    ident = _ident(req)
    util.authorize(req, POLICY % 'delete')
    db_rules.destroy(util.context(req), ident)
    return webob.Response(status=204)
