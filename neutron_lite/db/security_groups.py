"""Security groups and their rules, each project's default group, and
the groups of ports.

A project's ``default`` group is made the first time the project needs
it (it lists its groups, makes a group or a port), with upstream's four
rules: ingress from the group itself and egress to anywhere, for IPv4
and IPv6, in a transaction of its own (:func:`ensure_default_of`). Its
``default_security_groups`` row (primary key: the project) makes it
one, however many first requests race. A new group has the two
egress rules. A rule of one meaning is one rule per group (a unique
fingerprint, raced creates included).
"""

from typing import Any
import uuid

from oslo_db import exception as db_exc
import sqlalchemy as sa

from lite_common.context import RequestContext
from neutron_lite import exception
from neutron_lite.common import rules as rule_rules
from neutron_lite.db import api as db_api
from neutron_lite.db import models
from neutron_lite.db import query
from neutron_lite.db import resources
from neutron_lite.db import tags

KIND = 'security_group'
MODEL = G = models.SecurityGroup
R = models.SecurityGroupRule
D = models.DefaultSecurityGroup
DEFAULT_NAME = 'default'
DEFAULT_DESCRIPTION = 'Default security group'
COLUMNS: dict[str, Any] = {
    'id': G.id,
    'name': G.name,
    'description': G.description,
    'project_id': G.project_id,
    'tenant_id': G.project_id,
    'stateful': G.stateful,
    'revision_number': G.revision_number,
    'created_at': G.created_at,
    'updated_at': G.updated_at,
}
RULE_COLUMNS: dict[str, Any] = {
    'id': R.id,
    'project_id': R.project_id,
    'tenant_id': R.project_id,
    'security_group_id': R.security_group_id,
    'direction': R.direction,
    'ethertype': R.ethertype,
    'protocol': R.protocol,
    'port_range_min': R.port_range_min,
    'port_range_max': R.port_range_max,
    'remote_ip_prefix': R.remote_ip_prefix,
    'remote_group_id': R.remote_group_id,
    'description': R.description,
    'revision_number': R.revision_number,
    'created_at': R.created_at,
    'updated_at': R.updated_at,
}


def visible(context: RequestContext) -> Any:
    if context.is_admin:
        return sa.true()
    return resources.owned_by(context, G.project_id)


def rule_visible(context: RequestContext) -> Any:
    if context.is_admin:
        return sa.true()
    return sa.or_(
        resources.owned_by(context, R.project_id),
        R.security_group_id.in_(sa.select(G.id).where(visible(context))),
    )


def not_found(item_id: str) -> exception.NeutronLiteException:
    return exception.SecurityGroupNotFound(id=item_id)


def rule_not_found(item_id: str) -> exception.NeutronLiteException:
    return exception.SecurityGroupRuleNotFound(id=item_id)


def _defaults_of(session: Any, project_ids: list[str]) -> set[str]:
    if not project_ids:
        return set()
    return set(
        session.execute(
            sa.select(D.security_group_id).where(
                D.project_id.in_(set(project_ids))
            )
        ).scalars()
    )


def _with_rules(session: Any, rows: list[dict[str, Any]]) -> None:
    """Each group's rules and tags, in two queries."""
    ids = [r['id'] for r in rows]
    found: dict[str, list[dict[str, Any]]] = {i: [] for i in ids}
    defaults = _defaults_of(session, [r['project_id'] for r in rows])
    if ids:
        for rule in session.execute(
            sa.select(R)
            .where(R.security_group_id.in_(ids))
            .order_by(R.created_at, R.id)
        ).scalars():
            item = resources.row(rule)
            item['belongs_to_default_sg'] = rule.security_group_id in defaults
            found[rule.security_group_id].append(item)
    tagged = tags.of(session, KIND, ids)
    for r in rows:
        r['security_group_rules'] = found[r['id']]
        r['tags'] = tagged[r['id']]
        r['is_default'] = r['id'] in defaults


def _rule_children(session: Any, rows: list[dict[str, Any]]) -> None:
    if not rows:
        return
    owners = dict(
        session.execute(
            sa.select(G.id, G.project_id).where(
                G.id.in_({r['security_group_id'] for r in rows})
            )
        ).all()
    )
    defaults = _defaults_of(session, list(owners.values()))
    for r in rows:
        r['belongs_to_default_sg'] = r['security_group_id'] in defaults
        r['security_group_project_id'] = owners.get(r['security_group_id'])


TABLE = resources.Table(G, KIND, COLUMNS, visible, not_found, _with_rules)
RULE_TABLE = resources.Table(
    R,
    'security_group_rule',
    RULE_COLUMNS,
    rule_visible,
    rule_not_found,
    _rule_children,
)


def _rule_row(
    group_id: str, project_id: str, rule: dict[str, Any]
) -> models.SecurityGroupRule:
    return R(
        id=str(uuid.uuid4()),
        project_id=project_id,
        security_group_id=group_id,
        direction=rule['direction'],
        ethertype=rule['ethertype'],
        protocol=rule.get('protocol'),
        port_range_min=rule.get('port_range_min'),
        port_range_max=rule.get('port_range_max'),
        remote_ip_prefix=rule.get('remote_ip_prefix'),
        remote_group_id=rule.get('remote_group_id'),
        description=rule.get('description'),
        fingerprint=rule_rules.fingerprint(rule),
    )


def _egress() -> list[dict[str, Any]]:
    return [
        {'direction': 'egress', 'ethertype': e} for e in rule_rules.ETHERTYPES
    ]


def _add_group(
    session: Any,
    project_id: str,
    values: dict[str, Any],
    own_rules: list[dict[str, Any]],
) -> str:
    group_id = str(uuid.uuid4())
    session.add(G(id=group_id, project_id=project_id, **values))
    session.flush()
    for rule in own_rules:
        if rule.get('remote_group_id') == 'self':
            rule = {**rule, 'remote_group_id': group_id}
        session.add(_rule_row(group_id, project_id, rule))
    session.flush()
    return group_id


def _read_default(context: RequestContext, project_id: str) -> str | None:
    with db_api.context_manager.reader.using(context) as session:
        found = session.execute(
            sa.select(D.security_group_id).where(D.project_id == project_id)
        ).scalar()
    return None if found is None else str(found)


@db_api.retried
def ensure_default_of(context: RequestContext, project_id: str) -> str:
    """The id of ``project_id``'s default group, made if it has none,
    in a transaction of its own that writes only the first time (a list
    must not take a write lock). Of two first requests racing, one
    insert of the ``default_security_groups`` row fails: that request
    reads the winner's group in a new transaction (an older snapshot
    would not show it)."""
    found = _read_default(context, project_id)
    if found is not None:
        return found
    rules = [
        {'direction': 'ingress', 'ethertype': e, 'remote_group_id': 'self'}
        for e in rule_rules.ETHERTYPES
    ] + _egress()
    try:
        with db_api.context_manager.writer.using(context) as session:
            group_id = _add_group(
                session,
                project_id,
                {'name': DEFAULT_NAME, 'description': DEFAULT_DESCRIPTION},
                rules,
            )
            session.add(D(project_id=project_id, security_group_id=group_id))
        return group_id
    except db_exc.DBDuplicateEntry:
        found = _read_default(context, project_id)
        if found is None:
            raise
        return found


@db_api.retried
def create(context: RequestContext, values: dict[str, Any]) -> dict[str, Any]:
    """:raises SecurityGroupDefaultAlreadyExists: named ``default``."""
    project_id = values.pop('project_id')
    ensure_default_of(context, project_id)
    with db_api.context_manager.writer.using(context) as session:
        if values.get('name') == DEFAULT_NAME:
            raise exception.SecurityGroupDefaultAlreadyExists()
        egress = [{**r, 'description': None} for r in _egress()]
        group_id = _add_group(session, project_id, values, egress)
    return get(context, group_id)


def get(context: RequestContext, group_id: str) -> dict[str, Any]:
    return resources.get(context, TABLE, group_id)


def list_(
    context: RequestContext, request: query.ListRequest
) -> list[dict[str, Any]]:
    if context.project_id:
        ensure_default_of(context, context.project_id)
    return resources.list_rows(context, TABLE, request)


def update(
    context: RequestContext,
    group_id: str,
    values: dict[str, Any],
    expected: int | None = None,
) -> dict[str, Any]:
    """:raises SecurityGroupCannotUpdateDefault: renaming ``default``."""
    row = get(context, group_id)
    if row['is_default'] and values.get('name', DEFAULT_NAME) != DEFAULT_NAME:
        raise exception.SecurityGroupCannotUpdateDefault()
    return resources.update(context, TABLE, group_id, values, expected)


@db_api.retried
def delete(
    context: RequestContext, group_id: str, expected: int | None = None
) -> None:
    """:raises SecurityGroupCannotRemoveDefault: a member's default
    group. :raises SecurityGroupInUse: a port has it."""
    with db_api.context_manager.writer.using(context) as session:
        group = resources.one(session, context, TABLE, group_id)
        resources.check_revision(group.revision_number, expected)
        is_default = group_id in _defaults_of(session, [group.project_id])
        if is_default and not context.is_admin:
            raise exception.SecurityGroupCannotRemoveDefault()
        used = session.execute(
            sa.select(models.PortSecurityGroup.port_id)
            .where(models.PortSecurityGroup.security_group_id == group_id)
            .limit(1)
        ).first()
        if used is not None:
            raise exception.SecurityGroupInUse(id=group_id)
        session.execute(
            sa.delete(R).where(
                sa.or_(
                    R.security_group_id == group_id,
                    R.remote_group_id == group_id,
                )
            )
        )
        session.execute(sa.delete(D).where(D.security_group_id == group_id))
        tags.remove_all(session, KIND, group_id)
        session.execute(sa.delete(G).where(G.id == group_id))


@db_api.retried
def create_rule(
    context: RequestContext, rule: dict[str, Any], project_id: str
) -> dict[str, Any]:
    """``rule`` checked already (:func:`rules.normalized`).

    :raises SecurityGroupNotFound: its group or remote group is not
        seen.
    :raises SecurityGroupRuleExists: a rule of that meaning is there.
    """
    group_id = rule['security_group_id']
    with db_api.context_manager.writer.using(context) as session:
        resources.one(session, context, TABLE, group_id)
        remote = rule.get('remote_group_id')
        if remote:
            resources.one(session, context, TABLE, remote)
        made = _rule_row(group_id, project_id, rule)
        try:
            with session.begin_nested():
                session.add(made)
        except db_exc.DBDuplicateEntry:
            existing = session.execute(
                sa.select(R.id).where(
                    R.security_group_id == group_id,
                    R.fingerprint == made.fingerprint,
                )
            ).scalar()
            raise exception.SecurityGroupRuleExists(rule_id=existing) from None
        resources.bump(session, G, group_id, {}, None, not_found(group_id))
        rule_id = made.id
    return get_rule(context, rule_id)


def get_rule(context: RequestContext, rule_id: str) -> dict[str, Any]:
    return resources.get(context, RULE_TABLE, rule_id)


def list_rules(
    context: RequestContext, request: query.ListRequest
) -> list[dict[str, Any]]:
    if context.project_id:
        ensure_default_of(context, context.project_id)
    return resources.list_rows(context, RULE_TABLE, request)


@db_api.retried
def delete_rule(
    context: RequestContext, rule_id: str, expected: int | None = None
) -> None:
    with db_api.context_manager.writer.using(context) as session:
        rule = resources.one(session, context, RULE_TABLE, rule_id)
        resources.check_revision(rule.revision_number, expected)
        session.execute(sa.delete(R).where(R.id == rule_id))
        resources.bump(
            session,
            G,
            rule.security_group_id,
            {},
            None,
            not_found(rule.security_group_id),
        )


def bind_port(
    session: Any, port_id: str, project_id: str, group_ids: list[str]
) -> None:
    """The port's groups: ``group_ids``, groups of its project ([] for
    none; the caller resolves "its default group" with
    :func:`ensure_default_of` before its transaction).

    :raises SecurityGroupNotFound: a group of another project or none.
    """
    PSG = models.PortSecurityGroup
    session.execute(sa.delete(PSG).where(PSG.port_id == port_id))
    wanted = list(dict.fromkeys(group_ids))
    if wanted:
        found = set(
            session.execute(
                sa.select(G.id).where(
                    G.id.in_(wanted), G.project_id == project_id
                )
            ).scalars()
        )
        for group_id in wanted:
            if group_id not in found:
                raise exception.SecurityGroupNotFound(id=group_id)
    for group_id in wanted:
        session.add(PSG(port_id=port_id, security_group_id=group_id))


def of_ports(session: Any, port_ids: list[str]) -> dict[str, list[str]]:
    PSG = models.PortSecurityGroup
    found: dict[str, list[str]] = {p: [] for p in port_ids}
    if not port_ids:
        return found
    for port_id, group_id in session.execute(
        sa.select(PSG.port_id, PSG.security_group_id)
        .where(PSG.port_id.in_(port_ids))
        .order_by(PSG.security_group_id)
    ):
        found[port_id].append(group_id)
    return found
