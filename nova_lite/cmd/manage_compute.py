"""nova-lite-manage compute ...: identity show/verify, rename,
forget-evacuations (and list/release: manage_compute_holder.py).

``identity show`` and ``identity verify`` run on a compute host with the
agent's own configuration files; like the agent they reach the database
through the conductor when ``[database]connection`` is not set (as on a
compute host), directly otherwise. They run the agent's own start-up
checks and change nothing.
"""

from collections.abc import Callable
import functools
from typing import Any

from oslo_config import cfg

from lite_common import context as lite_context
from lite_common import rpc
from nova_lite import exception
from nova_lite import objects
from nova_lite.cmd import manage_compute_holder
from nova_lite.compute import identity
from nova_lite.compute import identity_check
from nova_lite.compute_api import moves as compute_api
from nova_lite.conductor import rpcapi as conductor_rpcapi
from nova_lite.db import api as db_api
from nova_lite.db import host_rename
from nova_lite.db import migrations as migration_db
from nova_lite.objects import base as objects_base
from nova_lite.objects import compute_node as cn_obj
from nova_lite.objects import service as service_obj
from nova_lite.virt import driver as virt_driver


def _with_objects(
    func: Callable[[cfg.ConfigOpts], int],
) -> Callable[[cfg.ConfigOpts], int]:
    """Run ``func`` with object access: direct, or via the conductor."""

    @functools.wraps(func)
    def run(conf: cfg.ConfigOpts) -> int:
        objects.register_all()
        if conf.database.connection:
            db_api.configure(conf, command=True)
            return func(conf)
        objects_base.set_default_indirection(
            conductor_rpcapi.ObjectIndirectionAPI(conf)
        )
        try:
            return func(conf)
        finally:
            rpc.cleanup()

    return run


def _plan(conf: cfg.ConfigOpts) -> tuple[Any, list[Any]]:
    """(plan or the refusal, the identity files found or [])."""
    dirs = identity.search_dirs(conf, conf.state_path)
    driver = virt_driver.load_driver(conf, conf.host, conf.state_path)
    if driver.manages_many_nodes:
        return None, []
    try:
        files = identity.read_identity_files(dirs)
        [nodename] = driver.get_available_nodes()
        return identity_check.plan(
            lite_context.get_admin_context(),
            conf.host,
            nodename,
            dirs,
            driver.list_instance_uuids(),
        ), files
    except exception.ComputeIdentityError as exc:
        return exc, []


def _describe_record(uuid: str) -> str:
    try:
        node = cn_obj.ComputeNode.get_by_uuid(
            lite_context.get_admin_context(), uuid
        )
    except exception.ComputeNodeNotFound:
        return 'no compute node record yet (the agent creates it)'
    return (
        f'compute node {node.uuid}: host {node.host}, hypervisor '
        f'{node.hypervisor_hostname}, service_id {node.service_id}'
    )


@_with_objects
def identity_show(conf: cfg.ConfigOpts) -> int:
    print(f'host:        {conf.host}')
    print(f'state_path:  {conf.state_path}')
    dirs = identity.search_dirs(conf, conf.state_path)
    print('searched:    ' + ', '.join(str(d) for d in dirs))
    plan, files = _plan(conf)
    if plan is None:
        print('driver:      manages many nodes; no compute_id file is used')
        return 0
    for item in files:
        print(f'file:        {item.path}: {item.uuid}')
    if isinstance(plan, Exception):
        print(f'identity:    unusable\nverdict:     REFUSE: {plan}')
        return 0
    print(f'identity:    {plan.node_uuid} ({plan.source})')
    print(f'database:    {_describe_record(plan.node_uuid)}')
    what = {
        'file': 'the agent starts with this identity',
        'new': f'the agent writes a new identity to '
        f'{conf.state_path}/{identity.FILENAME} (the UUID above '
        f'is an example; a new one is generated at start)',
        'upgrade': 'the agent adopts the existing node and writes its '
        'UUID to the compute_id file',
    }[plan.source]
    print(f'verdict:     OK: {what}')
    return 0


@_with_objects
def identity_verify(conf: cfg.ConfigOpts) -> int:
    plan, _files = _plan(conf)
    if isinstance(plan, Exception):
        print(f'nova-lite-compute would refuse to start: {plan}')
        return 1
    uuid = 'none (many-node driver)' if plan is None else plan.node_uuid
    print(f'OK: compute identity of host {conf.host}: {uuid}')
    return 0


def rename(conf: cfg.ConfigOpts) -> int:
    db_api.configure(conf, command=True)
    old, new = conf.command.old, conf.command.new
    try:
        counts = host_rename.rename_compute_host(
            lite_context.get_admin_context(), old, new, conf.service_down_time
        )
    except exception.HostRenameRefused as exc:
        print(str(exc))
        return 1
    changed = ', '.join(f'{n} {what}' for what, n in counts.items())
    print(
        f'Renamed compute host {old} to {new} ({changed}). Start the '
        f'agent with [DEFAULT]host = {new} and its compute_id file.'
    )
    return 0


def forget_evacuations(conf: cfg.ConfigOpts) -> int:
    """Mark the done evacuations away from a host that is gone for good
    completed, as its agent would after destroying the copies. Refused
    while the host's service is up (its agent cleans up itself)."""
    db_api.configure(conf, command=True)
    ctx = lite_context.get_admin_context()
    host = conf.command.gone_host
    service = compute_api.compute_service(ctx, host)
    if service is not None and service_obj.is_up(
        service, conf.service_down_time
    ):
        print(
            f'The compute service of {host} is up: its agent destroys '
            f'the evacuated copies and completes the records itself '
            f'(every [DEFAULT]cleanup_interval). Nothing changed.'
        )
        return 1
    records = migration_db.evacuations_from(ctx, host)
    done = [r['id'] for r in records if r['status'] == 'done']
    waiting = [r for r in records if r['status'] != 'done']
    completed = migration_db.mark_completed(ctx, done)
    print(
        f'Marked {completed} done evacuation(s) away from {host} '
        f'completed. Any copies still on that host are no longer tracked: '
        f'do not bring its disks back without wiping them.'
    )
    if waiting:
        listing = ', '.join(
            f'{r["uuid"]} ({r["status"]}, instance {r["instance_uuid"]})'
            for r in waiting
        )
        print(
            f'{len(waiting)} evacuation(s) are still in progress and '
            f'were left alone: {listing}. Let them finish, or end them '
            f'with "openstack server set --state error|active".'
        )
    return 0


def add_commands(subparsers: Any) -> None:
    compute = subparsers.add_parser(
        'compute',
        help='Compute host identity, renames and the agent '
        'processes holding host names.',
    )
    sub = compute.add_subparsers(dest='compute_action')
    ident = sub.add_parser('identity', help='The compute_id of this host.')
    ident_sub = ident.add_subparsers(dest='identity_action')
    ident_sub.add_parser(
        'show',
        help='The local identity, the files holding it and what '
        'the database says.',
    ).set_defaults(func=identity_show)
    ident_sub.add_parser(
        'verify',
        help='Exit 1 with the reason when nova-lite-compute '
        'would refuse to start.',
    ).set_defaults(func=identity_verify)
    ren = sub.add_parser(
        'rename', help='Rename a stopped compute host in the database.'
    )
    ren.add_argument(
        '--from', dest='old', required=True, help='The current host name.'
    )
    ren.add_argument(
        '--to', dest='new', required=True, help='The new host name.'
    )
    ren.set_defaults(func=rename)
    forget = sub.add_parser(
        'forget-evacuations',
        help='Complete the done evacuations away from a host that is gone '
        'for good (its agent would have destroyed the copies), so that '
        'its service can be deleted.',
    )
    forget.add_argument(
        '--host',
        dest='gone_host',
        required=True,
        help='The compute host that will not come back.',
    )
    forget.set_defaults(func=forget_evacuations)
    manage_compute_holder.add_commands(sub)
