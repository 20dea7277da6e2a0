"""``/v2.0/security-groups`` and ``/v2.0/security-group-rules``.

A project's ``default`` group is made the first time it is needed (see
:mod:`neutron_lite.db.security_groups`); it cannot be renamed, and only
an administrator deletes it. Rules are created and deleted, never
updated (as upstream); their protocol, ports and remote are checked
with upstream's messages (:mod:`neutron_lite.common.rules`). The rules
are recorded, not enforced: nothing filters packets.
"""

from typing import Any

import webob

from neutron_lite.api import crud
from neutron_lite.api import definitions
from neutron_lite.api import util
from neutron_lite.api import views
from neutron_lite.api.handlers import quotas
from neutron_lite.common import rules
from neutron_lite.db import security_groups as db

Row = dict[str, Any]


def target(req: webob.Request, row: Row) -> Row:
    return {'project_id': row['project_id'], 'tenant_id': row['project_id']}


def rule_target(req: webob.Request, row: Row) -> Row:
    owner = row.get('security_group_project_id') or row['project_id']
    return {
        'project_id': row['project_id'],
        'tenant_id': row['project_id'],
        'security_group:project_id': owner,
        'security_group:tenant_id': owner,
    }


class _Rules:
    """The rule side of the database module, as :class:`crud.Resource`
    calls it."""

    COLUMNS = db.RULE_COLUMNS
    list_ = staticmethod(db.list_rules)
    get = staticmethod(db.get_rule)
    delete = staticmethod(db.delete_rule)
    not_found = staticmethod(db.rule_not_found)


RESOURCE = crud.Resource(
    'security_group',
    'security_groups',
    db,
    definitions.SECURITY_GROUP,
    views.security_group,
    target,
)
RULE_RESOURCE = crud.Resource(
    'security_group_rule',
    'security_group_rules',
    _Rules,
    definitions.SECURITY_GROUP_RULE,
    views.security_group_rule,
    rule_target,
)


def list_groups(req: webob.Request) -> webob.Response:
    return crud.list_items(req, RESOURCE)


def show_group(req: webob.Request) -> webob.Response:
    return crud.show(req, RESOURCE, req.urlvars['security_group_id'])


def create_group(req: webob.Request) -> webob.Response:
    values = crud.parse(req, RESOURCE, create=True)
    project = crud.project_of(req, values)
    crud.check_attributes(
        req,
        RESOURCE,
        'create',
        values,
        {'project_id': project, 'tenant_id': project},
    )
    quotas.check(req, project, 'security_group')
    row = db.create(util.context(req), {**values, 'project_id': project})
    return crud.created(req, RESOURCE, row)


def update_group(req: webob.Request) -> webob.Response:
    group_id = req.urlvars['security_group_id']
    values = crud.parse(req, RESOURCE, create=False)
    row = crud.one(req, RESOURCE, group_id)
    crud.check_attributes(req, RESOURCE, 'update', values, target(req, row))
    row = db.update(
        util.context(req), group_id, values, util.expected_revision(req)
    )
    return crud.updated(req, RESOURCE, row)


def delete_group(req: webob.Request) -> webob.Response:
    return crud.delete(req, RESOURCE, req.urlvars['security_group_id'])


def list_rules(req: webob.Request) -> webob.Response:
    return crud.list_items(req, RULE_RESOURCE)


def show_rule(req: webob.Request) -> webob.Response:
    return crud.show(req, RULE_RESOURCE, req.urlvars['rule_id'])


def create_rule(req: webob.Request) -> webob.Response:
    values = crud.parse(req, RULE_RESOURCE, create=True)
    project = crud.project_of(req, values)
    group = db.get(util.context(req), values['security_group_id'])
    crud.check_attributes(
        req,
        RULE_RESOURCE,
        'create',
        values,
        {
            'project_id': project,
            'tenant_id': project,
            'security_group:project_id': group['project_id'],
            'security_group:tenant_id': group['project_id'],
        },
    )
    quotas.check(req, project, 'security_group_rule')
    row = db.create_rule(util.context(req), rules.normalized(values), project)
    return crud.created(req, RULE_RESOURCE, row)


def delete_rule(req: webob.Request) -> webob.Response:
    return crud.delete(req, RULE_RESOURCE, req.urlvars['rule_id'])
