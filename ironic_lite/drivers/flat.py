"""The ``flat`` network interface: every node on one shared network.

A VIF attached to a node is bound to one of its ports or portgroups and
recorded there, in ``internal_info['tenant_vif_port_id']``, as upstream
does; ``GET /v1/nodes/{node}/vifs`` lists those records. The port is
chosen as upstream chooses it, among the free ones (no VIF yet) or the
one the request names (``port_uuid`` / ``portgroup_uuid``, API 1.67):

* portgroups before ports,
* then ports with PXE enabled,
* a port of a portgroup only through its group, unless the group has a
  VIF already (then its free member ports are candidates), or the
  request names the port.

ironic_lite talks to no network service (upstream binds a Neutron
port): the binding is the record, and the provisioning, tenant and
cleaning steps only log which network the node is on. Like upstream's,
the interface needs a cleaning network to be named (``driver_info``
``cleaning_network`` or ``[neutron]cleaning_network``), and refuses to
validate without one.
"""

import json
from typing import Any
from typing import cast

from oslo_log import log as logging

from ironic_lite import exception
from ironic_lite.db import portgroups as db_portgroups
from ironic_lite.db import ports as db_ports
from ironic_lite.drivers import base
from ironic_lite.drivers import standard

LOG = logging.getLogger(__name__)

#: The ``internal_info`` key of a port's tenant VIF (upstream's).
VIF_KEY = 'tenant_vif_port_id'
#: The VIF id of the API before 1.28, in a port's ``extra``.
LEGACY_VIF_KEY = 'vif_port_id'


class _PortLike:
    """A port or a portgroup row, with what choosing one needs."""

    def __init__(self, row: dict[str, Any], is_group: bool) -> None:
        self.row = row
        self.is_group = is_group

    @property
    def uuid(self) -> str:
        return cast(str, self.row['uuid'])

    @property
    def vif(self) -> str | None:
        return (self.row.get('internal_info') or {}).get(VIF_KEY)

    @property
    def kind(self) -> str:
        return 'Portgroup' if self.is_group else 'Port'

    def preference(self) -> tuple[bool, bool]:
        return self.is_group, bool(self.is_group or self.row['pxe_enabled'])


def _usable(port: dict[str, Any]) -> bool:
    """A Smart NIC port needs its host and port in local_link_connection
    (upstream's check; others always do)."""
    if not port.get('is_smartnic'):
        return True
    link = port.get('local_link_connection') or {}
    usable = bool(link.get('hostname') and link.get('port_id'))
    if not usable:
        LOG.error(
            'Smart NIC port %s must have port_id and hostname in '
            'local_link_connection',
            port['uuid'],
        )
    return usable


class FlatNetwork(standard.NetworkInterface):
    """VIFs bound to ports on one shared network (see the module)."""

    def get_properties(self) -> dict[str, str]:
        return {
            'cleaning_network': (
                'UUID or name of the network to clean on; overrides '
                '[neutron]cleaning_network. Optional.'
            )
        }

    def cleaning_network(self, task: base.TaskLike) -> str:
        """The node's cleaning network.

        :raises MissingParameterValue: none is set.
        """
        network = (task.node.driver_info or {}).get(
            'cleaning_network'
        ) or self.conf.neutron.cleaning_network
        if not network:
            raise exception.MissingParameterValue(
                err='UUID or name of cleaning_network is not set in '
                'configuration or in node driver_info.'
            )
        return str(network)

    def validate(self, task: base.TaskLike) -> None:
        self.cleaning_network(task)

    # Which port carries which VIF.

    def _port_likes(
        self, task: base.TaskLike
    ) -> tuple[list[_PortLike], list[_PortLike]]:
        node = db_ports.Filters(node_id=task.node.id)
        ports = [
            _PortLike(row, False)
            for row in db_ports.list_page(task.context, node)
        ]
        groups = [
            _PortLike(row, True)
            for row in db_portgroups.list_page(
                task.context, db_ports.Filters(node_id=task.node.id)
            )
        ]
        return ports, groups

    def _candidates(
        self, task: base.TaskLike, vif_id: str, vif_info: dict[str, Any]
    ) -> list[_PortLike]:
        ports, groups = self._port_likes(task)
        for port_like in ports + groups:
            if port_like.vif == vif_id:
                raise exception.VifAlreadyAttached(
                    vif=vif_id,
                    object_type=port_like.kind,
                    object_uuid=port_like.uuid,
                )
        want_port = vif_info.get('port_uuid')
        want_group = None if want_port else vif_info.get('portgroup_uuid')
        free: list[_PortLike] = []
        members: dict[int, list[_PortLike]] = {}
        busy_groups: set[int] = set()
        for port in ports:
            if want_port and port.uuid != want_port:
                continue
            if not _usable(port.row):
                continue
            group_id = port.row['portgroup_id']
            if port.vif is not None:
                if group_id is not None:
                    busy_groups.add(group_id)
                continue
            if group_id is None and not want_group:
                free.append(port)
            else:
                members.setdefault(group_id, []).append(port)
        if want_port:
            # The named port, in a group or not.
            return free + [p for group in members.values() for p in group]
        for group in groups:
            if want_group and group.uuid != want_group:
                continue
            if group.vif is not None:
                continue
            group_id = group.row['id']
            if group_id in busy_groups:
                if not want_group:
                    free.extend(members.get(group_id, []))
            elif members.get(group_id):
                free.append(group)
        return free

    def vif_attach(
        self, task: base.TaskLike, vif_info: dict[str, Any]
    ) -> None:
        vif_id = vif_info['id']
        candidates = self._candidates(task, vif_id, vif_info)
        if not candidates:
            raise exception.NoFreePhysicalPorts(vif=vif_id)
        chosen = max(candidates, key=_PortLike.preference)
        info = dict(chosen.row.get('internal_info') or {})
        info[VIF_KEY] = vif_id
        self._write(task, chosen, {'internal_info': info})
        LOG.info(
            'VIF %(vif)s bound to %(kind)s %(port)s of node %(node)s',
            {
                'vif': vif_id,
                'kind': chosen.kind.lower(),
                'port': chosen.uuid,
                'node': task.node.uuid,
            },
        )

    def vif_detach(self, task: base.TaskLike, vif_id: str) -> None:
        ports, groups = self._port_likes(task)
        for port_like in groups + ports:
            if port_like.vif == vif_id:
                info = dict(port_like.row.get('internal_info') or {})
                info.pop(VIF_KEY, None)
                extra = dict(port_like.row.get('extra') or {})
                extra.pop(LEGACY_VIF_KEY, None)
                self._write(
                    task, port_like, {'internal_info': info, 'extra': extra}
                )
                LOG.info(
                    'VIF %(vif)s unbound from %(kind)s %(port)s of '
                    'node %(node)s',
                    {
                        'vif': vif_id,
                        'kind': port_like.kind.lower(),
                        'port': port_like.uuid,
                        'node': task.node.uuid,
                    },
                )
                return
        raise exception.VifNotAttached(vif=vif_id, node=task.node.uuid)

    def vif_list(self, task: base.TaskLike) -> list[dict[str, Any]]:
        ports, groups = self._port_likes(task)
        return [{'id': p.vif} for p in ports + groups if p.vif]

    @staticmethod
    def _write(
        task: base.TaskLike, port_like: _PortLike, values: dict[str, Any]
    ) -> None:
        if port_like.is_group:
            db_portgroups.update(task.context, port_like.uuid, values)
        else:
            db_ports.update(task.context, port_like.uuid, values)

    # The network steps: nothing to program, the node is on the flat
    # network already.

    def _log(self, task: base.TaskLike, what: str) -> None:
        vifs = [vif['id'] for vif in self.vif_list(task)]
        LOG.info(
            'Node %(node)s: %(what)s on the flat network (VIFs: '
            '%(vifs)s); no network service to program',
            {'node': task.node.uuid, 'what': what, 'vifs': json.dumps(vifs)},
        )

    def add_provisioning_network(self, task: base.TaskLike) -> None:
        self._log(task, 'provisioning')

    def remove_provisioning_network(self, task: base.TaskLike) -> None:
        pass

    def configure_tenant_networks(self, task: base.TaskLike) -> None:
        self._log(task, 'tenant networks')

    def unconfigure_tenant_networks(self, task: base.TaskLike) -> None:
        pass

    def add_cleaning_network(self, task: base.TaskLike) -> None:
        self._log(task, f'cleaning on {self.cleaning_network(task)}')

    def remove_cleaning_network(self, task: base.TaskLike) -> None:
        pass
