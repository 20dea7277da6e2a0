"""Runbooks (API 1.92): ``/v1/runbooks``.

A runbook is a named list of steps (each with an ``order``) that a
node runs for manual cleaning or servicing instead of steps given in
the request (``{"target": "clean", "runbook": ...}``, see
:func:`steps_for`). As upstream at 1.92:

- its name is a trait: a node may run it only when it has that trait;
- it has an ``owner`` (a project) or none, and may be ``public``: a
  project-scoped creator's runbook is its project's and cannot be
  public; its members see it, its managers change, delete and use it;
  everyone may read a public one; only the system sets ``owner`` and
  ``public`` later on, and a public runbook has no owner;
- below 1.92 a GET is a 404 and anything else a 405; a list shows uuid,
  name and links unless ``detail`` or ``fields`` asks for more; step
  arguments are shown with their secrets masked.
"""

from collections import Counter
import re
from typing import Any

from oslo_utils import uuidutils
import webob
import webob.exc

from ironic_lite.api import listing
from ironic_lite.api import microversion as mv
from ironic_lite.api import resource_patch
from ironic_lite.api import util
from ironic_lite.api.handlers import node_access
from ironic_lite.api.handlers import node_traits
from ironic_lite.api.schemas import nodes as node_schemas
from ironic_lite.api.views import nodes as node_views
from ironic_lite.common import step_requests
from ironic_lite.db import node_traits as db_node_traits
from ironic_lite.db import runbooks as db_runbooks
from lite_common.wsgi import handling

POLICY = 'baremetal:runbook:%s'
FIELDS = (
    'uuid',
    'name',
    'steps',
    'disable_ramdisk',
    'public',
    'owner',
    'extra',
    'created_at',
    'updated_at',
    'links',
)
LIST_FIELDS = ('uuid', 'name', 'links')
LIST_PARAMS = frozenset(
    {'marker', 'limit', 'sort_key', 'sort_dir', 'fields', 'detail', 'project'}
)
PATCHABLE = ('disable_ramdisk', 'extra', 'name', 'owner', 'public', 'steps')
#: From 1.112: the description, and the traits (read only here).
FIELDS_1112 = FIELDS + ('description', 'traits')
PATCHABLE_1112 = PATCHABLE + ('description',)
_NOT_ALLOWED = 'The API version does not allow runbooks'

#: One step (upstream's RUNBOOK_STEP_SCHEMA).
STEP: dict[str, Any] = {
    'type': 'object',
    'properties': {
        'args': {'type': 'object'},
        'interface': {
            'type': 'string',
            'enum': list(step_requests.INTERFACE_ORDER),
        },
        'step': {'type': 'string', 'minLength': 1},
        # An INTEGER column holds it.
        'order': {
            'anyOf': [
                {'type': 'integer', 'minimum': 0, 'maximum': 2**31 - 1},
                {'type': 'string', 'minLength': 1, 'pattern': '^[0-9]{1,9}$'},
            ]
        },
    },
    'required': ['interface', 'step', 'order'],
    'additionalProperties': False,
}
RUNBOOK: dict[str, Any] = {
    'type': 'object',
    'properties': {
        'uuid': {'type': ['string', 'null']},
        'name': {'type': 'string', 'minLength': 1, 'maxLength': 255},
        'steps': {'type': 'array', 'items': STEP, 'minItems': 1},
        'disable_ramdisk': {'type': ['boolean', 'null']},
        'extra': {'type': ['object', 'null']},
        'public': {'type': ['boolean', 'null']},
        'owner': {'type': ['string', 'null'], 'maxLength': 255},
    },
    'required': ['steps', 'name'],
    'additionalProperties': False,
}
#: From 1.112: any RFC 3986 unreserved name, and a description.
RUNBOOK_1112: dict[str, Any] = {
    **RUNBOOK,
    'properties': {
        **RUNBOOK['properties'],
        'name': {
            'type': 'string',
            'minLength': 1,
            'maxLength': 255,
            'pattern': r'^[A-Za-z0-9\-._~]+$',
        },
        'description': {'type': ['string', 'null'], 'maxLength': 255},
    },
}


def _traits_served(req: webob.Request) -> bool:
    return util.version(req).at_least(mv.RUNBOOK_TRAITS)


def _all_fields(req: webob.Request) -> tuple[str, ...]:
    return FIELDS_1112 if _traits_served(req) else FIELDS


def require(req: webob.Request) -> None:
    if util.version(req).below(mv.RUNBOOKS):
        if req.method == 'GET':
            raise webob.exc.HTTPNotFound(explanation=_NOT_ALLOWED)
        raise webob.exc.HTTPMethodNotAllowed(explanation=_NOT_ALLOWED)


def render(
    req: webob.Request, row: dict[str, Any], fields: tuple[str, ...]
) -> dict[str, Any]:
    item: dict[str, Any] = {}
    for name in fields:
        if name == 'links':
            item[name] = util.links_at(
                util.base_url(req), 'runbooks', row['uuid']
            )
        elif name in ('created_at', 'updated_at'):
            item[name] = util.isotime(row[name])
        elif name == 'steps':
            item[name] = [
                {
                    'interface': s['interface'],
                    'step': s['step'],
                    'args': node_views.mask_secrets(s['args'] or {}),
                    'order': s['order'],
                }
                for s in row['steps']
            ]
        elif name == 'extra':
            item[name] = row['extra'] or {}
        elif name == 'traits':
            item[name] = list(row['traits'])
        else:
            item[name] = row[name]
    return item


def _checked(req: webob.Request, runbook: dict[str, Any]) -> dict[str, Any]:
    """A runbook body (created, or patched) as upstream checks it: its
    name a trait before 1.112, a description from 1.112."""
    if _traits_served(req):
        handling.validate(RUNBOOK_1112, runbook)
    else:
        handling.validate(RUNBOOK, runbook)
        node_traits.check_trait(runbook['name'])
    if runbook.get('uuid') and not uuidutils.is_uuid_like(runbook['uuid']):
        raise webob.exc.HTTPBadRequest(
            explanation=f'Expected UUID for uuid: {runbook["uuid"]}'
        )
    counts = Counter((s['interface'], s['step']) for s in runbook['steps'])
    duplicates = sorted(key for key, count in counts.items() if count > 1)
    if duplicates:
        # Upstream's message (shared with deploy templates).
        raise webob.exc.HTTPBadRequest(
            explanation='Duplicate deploy steps. A template cannot have '
            'multiple deploy steps with the same interface and step. '
            'Duplicates: '
            + '; '.join(f'interface: {i}, step: {s}' for i, s in duplicates)
        )
    values = (
        {}
        if not _traits_served(req)
        else {'description': runbook.get('description')}
    )
    return {
        **values,
        'name': runbook['name'],
        'disable_ramdisk': bool(runbook.get('disable_ramdisk')),
        'public': bool(runbook.get('public')),
        'owner': runbook.get('owner'),
        'extra': runbook.get('extra') or {},
        'steps': [
            {
                'interface': s['interface'],
                'step': s['step'],
                'args': s.get('args') or {},
                'order': int(s['order']),
            }
            for s in runbook['steps']
        ],
    }


def _ident(ident: str) -> str:
    if uuidutils.is_uuid_like(ident):
        return util.canonical_uuid(ident)
    if not re.match(node_schemas.NAME_PATTERN, ident):
        raise webob.exc.HTTPBadRequest(
            explanation=f'Expected a logical name or UUID but received '
            f'{ident}.'
        )
    return ident


def _target(req: webob.Request, row: dict[str, Any]) -> dict[str, Any]:
    return {
        'project_id': util.context(req).project_id,
        'runbook.owner': row['owner'],
    }


def retrieve(req: webob.Request, ident: str, *actions: str) -> dict[str, Any]:
    """The runbook ``ident`` once ``actions`` are allowed on it (403
    otherwise, as upstream's check_runbook_policy_and_retrieve)."""
    row = db_runbooks.get(util.context(req), _ident(ident))
    for action in actions:
        util.authorize(req, POLICY % action, _target(req, row))
    return row


def _list_project(req: webob.Request) -> str | None:
    """None when the caller lists every runbook, else its project
    (whose runbooks and the public ones it sees)."""
    if node_access.allowed(req, POLICY % 'list_all', {}):
        return None
    project = util.context(req).project_id
    if not project:
        util.authorize(req, POLICY % 'list_all')
    util.authorize(req, POLICY % 'list')
    return project


def list_runbooks(req: webob.Request) -> webob.Response:
    require(req)
    listing.check_params(req, LIST_PARAMS)
    project = _list_project(req)
    fields = listing.list_fields(req, _all_fields(req), LIST_FIELDS)
    sort_key = listing.sort_key(req, db_runbooks.UNSORTABLE)
    limit = listing.page_limit(req)
    rows = db_runbooks.list_page(
        util.context(req),
        project,
        limit=limit,
        marker=listing.marker(req),
        sort_key=sort_key,
        sort_dir=req.GET.get('sort_dir', 'asc'),
    )
    return util.json_response(
        listing.page_body(
            req, 'runbooks', rows, lambda row: render(req, row, fields), limit
        )
    )


def show_runbook(req: webob.Request) -> webob.Response:
    require(req)
    listing.check_params(req, frozenset({'fields'}))
    row = db_runbooks.get(
        util.context(req), _ident(req.urlvars['runbook_ident'])
    )
    if (
        not node_access.allowed(req, POLICY % 'get', _target(req, row))
        and not row['public']
    ):
        util.authorize(req, POLICY % 'get', _target(req, row))
    fields = listing.shown_fields(req, _all_fields(req))
    return util.json_response(render(req, row, fields))


def _own(req: webob.Request, values: dict[str, Any]) -> None:
    """A project-scoped creator's runbook is its project's, never
    public (upstream's rules and messages)."""
    ctx = util.context(req)
    if ctx.system_scope == 'all':
        return
    project = ctx.project_id
    if values['owner'] and values['owner'] != project:
        raise webob.exc.HTTPBadRequest(
            explanation='Cannot create a runbook as a project scoped admin '
            'with an owner other than your own project.'
        )
    if project and values['public']:
        raise webob.exc.HTTPBadRequest(
            explanation='Cannot create a public runbook as a project scoped '
            'admin.'
        )
    values['owner'] = project


def create_runbook(req: webob.Request) -> webob.Response:
    require(req)
    util.authorize(req, POLICY % 'create')
    body = util.read_body(
        req, RUNBOOK_1112 if _traits_served(req) else RUNBOOK
    )
    values = _checked(req, body)
    _own(req, values)
    values['uuid'] = (
        util.canonical_uuid(body['uuid'])
        if body.get('uuid')
        else uuidutils.generate_uuid()
    )
    row = db_runbooks.create(util.context(req), values)
    location = f'{util.base_url(req)}/v1/runbooks/{row["uuid"]}'
    return util.json_response(
        render(req, row, _all_fields(req)),
        status=201,
        headers={'Location': location},
    )


def _patch_actions(patch: list[dict[str, Any]]) -> list[str]:
    """The rules a patch needs, as upstream works them out: update:owner
    and update:public for those paths, update for anything else."""
    actions = []
    generic = False
    for op in patch:
        path = op['path']
        if path.startswith('/owner'):
            actions.append('update:owner')
        elif path.startswith('/public'):
            actions.append('update:public')
        else:
            generic = True
    if generic or not actions:
        actions.insert(0, 'update')
    return actions


def _patched(
    req: webob.Request, row: dict[str, Any], patch: list[dict[str, Any]]
) -> dict[str, Any]:
    owner = resource_patch.patch_values(patch, '/owner')
    public = resource_patch.patch_values(patch, '/public')
    if owner and ((row['public'] and not public) or (public and public[0])):
        raise webob.exc.HTTPBadRequest(
            explanation=f"Couldn't apply patch '{patch}'. Reason: There "
            'cannot be an owner for a public runbook'
        )
    document = {key: row[key] for key in _patchable(req) if key != 'steps'}
    document['extra'] = row['extra'] or {}
    document['steps'] = [dict(s) for s in row['steps']]
    if public:
        document['owner'] = None
    return resource_patch.apply_patch(document, patch)


def update_runbook(req: webob.Request) -> webob.Response:
    require(req)
    patch = util.read_body(req, node_schemas.PATCH)
    resource_patch.check_allowed(patch, _patchable(req))
    row = retrieve(req, req.urlvars['runbook_ident'], *_patch_actions(patch))
    values = _checked(req, _patched(req, row, patch))
    row = db_runbooks.update(util.context(req), row['id'], values)
    return util.json_response(render(req, row, _all_fields(req)))


def _patchable(req: webob.Request) -> tuple[str, ...]:
    return PATCHABLE_1112 if _traits_served(req) else PATCHABLE


def delete_runbook(req: webob.Request) -> webob.Response:
    require(req)
    row = retrieve(req, req.urlvars['runbook_ident'], 'delete')
    db_runbooks.destroy(util.context(req), row['id'])
    return webob.Response(status=204)


# -- provisioning with a runbook


def steps_for(
    req: webob.Request, node: dict[str, Any], body: dict[str, Any]
) -> tuple[list[dict[str, Any]], bool]:
    """The steps and ``disable_ramdisk`` of the runbook a ``clean`` or
    ``service`` request names (``baremetal:runbook:use``), once the node
    may run it: it has the runbook's name among its traits. The steps
    run in their ``order`` (then as listed).

    :raises HTTPNotAcceptable: below 1.92.
    :raises HTTPBadRequest: steps given as well, or not allowed here.
    """
    if util.version(req).below(mv.RUNBOOKS):
        raise webob.exc.HTTPNotAcceptable(
            explanation='Request not acceptable.'
        )
    row = retrieve(req, str(body['runbook']), 'use')
    _check_approved(req, row, node)
    target = body['target']
    if target not in ('clean', 'service'):
        raise webob.exc.HTTPBadRequest(
            explanation='"runbooks" is only valid when setting target '
            "provision state to any of ['clean', 'service']"
        )
    if body.get(f'{target}_steps'):
        raise webob.exc.HTTPBadRequest(
            explanation=f'Please provide either "{target}_steps" or a '
            'runbook, but not both.'
        )
    ordered = sorted(
        enumerate(row['steps']), key=lambda item: (item[1]['order'], item[0])
    )
    steps = [
        {
            'interface': s['interface'],
            'step': s['step'],
            'args': s['args'] or {},
        }
        for _i, s in ordered
    ]
    return steps, bool(row['disable_ramdisk'])


def _check_approved(
    req: webob.Request, row: dict[str, Any], node: dict[str, Any]
) -> None:
    """The node may run the runbook: it has the runbook's name among its
    traits, or from 1.112 one of the runbook's traits (upstream's
    messages)."""
    traits = set(
        db_node_traits.traits_of(util.context(req), [node['id']]).get(
            node['id'], []
        )
    )
    if not _traits_served(req):
        if row['name'] not in traits:
            raise webob.exc.HTTPBadRequest(
                explanation='This runbook has not been approved for use on '
                f'this node {node["uuid"]}. Please ask an administrator to '
                'add it to your node traits.'
            )
        return
    if not row['traits']:
        raise webob.exc.HTTPBadRequest(
            explanation=f'Runbook {row["uuid"]} has no traits configured. '
            'Please ask an administrator to add traits to the runbook.'
        )
    if not traits & set(row['traits']):
        raise webob.exc.HTTPBadRequest(
            explanation='This runbook has not been approved for use on '
            f'this node {node["uuid"]}. The node does not have any of the '
            f"runbook's traits {sorted(row['traits'])}. Please ask an "
            'administrator to add a matching trait to your node.'
        )
