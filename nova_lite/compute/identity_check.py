"""Who is this compute agent? Checks made before it touches anything.

:func:`plan` compares the ``compute_id`` files, the agent's ``host``, what
the driver reports and the service and compute node records, and either
returns what start-up is to do (:class:`IdentityPlan`) or raises
ComputeIdentityError with what was found, what was expected and what to
do. It changes nothing, so ``nova-lite-manage compute identity verify``
runs exactly the checks the agent runs.
"""

from collections.abc import Callable
import dataclasses
from pathlib import Path
from typing import Any

from oslo_utils import uuidutils

from lite_common.context import RequestContext
from nova_lite import exception
from nova_lite.compute import identity
from nova_lite.objects import compute_node as cn_obj
from nova_lite.objects import instance as instance_obj
from nova_lite.objects import service as service_obj

GUIDE = 'See "Compute node identification" in the admin guide.'


@dataclasses.dataclass
class IdentityPlan:
    """What start-up does about identity (nothing is done yet).

    ``source``: ``file`` (the files name the node), ``new`` (greenfield:
    a new UUID is written), ``upgrade`` (a service from before identity
    files: its one node's UUID is written).
    """

    node_uuid: str
    source: str
    files: list[identity.IdentityFile]
    service: Any = None
    node: Any = None

    @property
    def write_file(self) -> bool:
        return self.source in ('new', 'upgrade')


def _find(getter: Callable[..., Any], *args: Any) -> Any:
    try:
        return getter(*args)
    except exception.NotFound:
        return None


def _refuse(reason: str) -> exception.ComputeIdentityError:
    return exception.ComputeIdentityError(reason=f'{reason} {GUIDE}')


def _where(files: list[identity.IdentityFile]) -> str:
    return ', '.join(str(f.path) for f in files)


def _check_known_node(
    node: Any, host: str, nodename: str, files: list[identity.IdentityFile]
) -> None:
    if node.host != host:
        raise _refuse(
            f'compute node {node.uuid} (from {_where(files)}) belongs to '
            f'host {node.host!r}, but this agent is configured as host '
            f'{host!r}. The host was renamed, or the file was copied from '
            f'another host. To keep the old name, set [DEFAULT]host = '
            f'{node.host}; to rename on purpose, stop the agent and run '
            f'"nova-lite-manage compute rename --from {node.host} --to '
            f'{host}".'
        )
    if node.hypervisor_hostname != nodename:
        raise _refuse(
            f'compute node {node.uuid} (from {_where(files)}) is '
            f'hypervisor {node.hypervisor_hostname!r}, but the driver '
            f'reports {nodename!r}. The hypervisor host name changed; '
            f'restore it, or check that the file belongs to this host.'
        )


def _check_no_duplicate(
    context: RequestContext, host: str, nodename: str, uuid: str | None
) -> None:
    other = _find(
        cn_obj.ComputeNode.get_by_host_and_nodename, context, host, nodename
    )
    if other is None or other.uuid == uuid:
        return
    if uuid is None:
        raise _refuse(
            f'no compute_id file was found, but compute node {other.uuid} '
            f'already exists for host {host!r} and node {nodename!r}. If '
            f'that is this host, write its UUID to {identity.FILENAME} in '
            f'state_path; otherwise delete the stale record.'
        )
    raise _refuse(
        f'compute node {other.uuid} already exists for host {host!r} and '
        f"node {nodename!r}, but this agent's compute_id is {uuid}: two "
        f'records would describe one hypervisor. Put {other.uuid} in the '
        f'compute_id file if that record is this host, or delete the '
        f'duplicate record.'
    )


def _check_not_replacing(
    context: RequestContext,
    host: str,
    service: Any,
    uuid: str,
    files: list[identity.IdentityFile],
) -> None:
    """A new node must not silently replace the one this host's service
    already has: its instances would stay on a node nobody manages,
    still a scheduling candidate."""
    others = [
        n
        for n in cn_obj.ComputeNodeList.get_by_service_id(context, service.id)
        if n.uuid != uuid
    ]
    if not others:
        return
    # (A single-node agent's service has one node: one query or two.)
    counts = {
        n.id: len(
            instance_obj.InstanceList.get_uuids_by_compute_ids(context, [n.id])
        )
        for n in others
    }
    listing = ', '.join(
        f'{n.uuid} (hypervisor {n.hypervisor_hostname}, '
        f'{counts[n.id]} instance(s))'
        for n in others
    )
    raise _refuse(
        f'the compute_id file ({_where(files)}) holds {uuid}, which names '
        f'no compute node, but the service of host {host!r} already has '
        f'compute node(s) {listing}: starting would create a second node '
        f'and leave those instances on a node no agent manages. If the '
        f'file was replaced or regenerated, put the old UUID back. If this '
        f'host really is a new hypervisor, first migrate or evacuate the '
        f'old node\'s instances, then delete the service ("openstack '
        f'compute service delete") and start the agent again.'
    )


def _deleted_own_node(context: RequestContext, host: str, uuid: str) -> Any:
    """This host's node of that uuid if an operator deleted its service
    while the agent was away (the agent restores both), else None."""
    node = _find(cn_obj.ComputeNode.get_deleted_by_uuid, context, uuid)
    return node if node is not None and node.host == host else None


def _plan_from_file(
    context: RequestContext,
    host: str,
    nodename: str,
    service: Any,
    instance_uuids: list[str],
    files: list[identity.IdentityFile],
) -> IdentityPlan:
    uuid = files[0].uuid
    node = _find(cn_obj.ComputeNode.get_by_uuid, context, uuid)
    if node is not None:
        _check_known_node(node, host, nodename, files)
        return IdentityPlan(uuid, 'file', files, service, node)
    _check_no_duplicate(context, host, nodename, uuid)
    if service is not None:
        _check_not_replacing(context, host, service, uuid, files)
    elif instance_uuids and _deleted_own_node(context, host, uuid) is None:
        raise _wrong_database(host, instance_uuids)
    return IdentityPlan(uuid, 'file', files, service, None)


def _wrong_database(host: str, instance_uuids: list[str]) -> Exception:
    sample = ', '.join(instance_uuids[:3])
    return _refuse(
        f'the database has no service record for host {host!r}, but the '
        f'hypervisor already has {len(instance_uuids)} instance(s) (e.g. '
        f'{sample}). The agent may be pointed at the wrong cloud or '
        f'database, or its host name changed; check transport_url and '
        f'[DEFAULT]host.'
    )


def _plan_without_file(
    context: RequestContext,
    host: str,
    nodename: str,
    service: Any,
    instance_uuids: list[str],
    dirs: list[Path],
) -> IdentityPlan:
    searched = ', '.join(str(d) for d in dirs)
    if service is None:
        if instance_uuids:
            raise _wrong_database(host, instance_uuids)
        _check_no_duplicate(context, host, nodename, None)
        return IdentityPlan(uuidutils.generate_uuid(), 'new', [])
    if service.version >= service_obj.IDENTITY_SERVICE_VERSION:
        nodes = cn_obj.ComputeNodeList.get_by_service_id(context, service.id)
        known = ', '.join(n.uuid for n in nodes) or 'none'
        raise _refuse(
            f'the service record of host {host!r} shows that this agent '
            f'ran with a compute_id file, but none was found (searched '
            f'{searched}). State was lost (e.g. a reinstalled state_path). '
            f'Restore the file; the compute node(s) of this host: {known}.'
        )
    return _upgrade_plan(context, host, nodename, service, searched)


def _upgrade_plan(
    context: RequestContext,
    host: str,
    nodename: str,
    service: Any,
    searched: str,
) -> IdentityPlan:
    # By the integer link; by host name only for nodes written before
    # service_id existed.
    nodes = list(
        cn_obj.ComputeNodeList.get_by_service_id(context, service.id)
    ) or list(cn_obj.ComputeNodeList.get_all_by_host(context, host))
    if not nodes:
        raise _refuse(
            f'host {host!r} has a service record from before compute_id '
            f'files but no compute node record, and no compute_id file was '
            f'found (searched {searched}). The host may have been renamed; '
            f'check [DEFAULT]host.'
        )
    if len(nodes) > 1:
        listing = ', '.join(
            f'{n.uuid} ({n.hypervisor_hostname})' for n in nodes
        )
        raise _refuse(
            f'host {host!r} has several compute node records ({listing}) '
            f'and no compute_id file. Write the UUID of the node this '
            f'agent manages to {identity.FILENAME} in state_path by hand '
            f'(no trailing newline needed), then start it again.'
        )
    node = nodes[0]
    if node.hypervisor_hostname != nodename:
        raise _refuse(
            f'the only compute node of host {host!r}, {node.uuid}, is '
            f'hypervisor {node.hypervisor_hostname!r}, but the driver '
            f'reports {nodename!r}; not adopting it. Restore the '
            f'hypervisor host name or write the right UUID to '
            f'{identity.FILENAME} by hand.'
        )
    return IdentityPlan(node.uuid, 'upgrade', [], service, node)


def plan(
    context: RequestContext,
    host: str,
    nodename: str,
    dirs: list[Path],
    instance_uuids: list[str],
) -> IdentityPlan:
    """Decide the identity of a single-node agent; change nothing.

    ``nodename``: what the driver reports; ``instance_uuids``: what the
    hypervisor holds; ``dirs``: where compute_id files may be.
    """
    files = identity.read_identity_files(dirs)
    service = _find(
        service_obj.Service.get_by_host_and_binary,
        context,
        host,
        service_obj.COMPUTE_BINARY,
    )
    if files:
        return _plan_from_file(
            context, host, nodename, service, instance_uuids, files
        )
    return _plan_without_file(
        context, host, nodename, service, instance_uuids, dirs
    )
