"""Client side of the bare metal conductor RPC API.

Topic ``ironic-lite.conductor``; the server name is the conductor's
``[DEFAULT]host``. A request about a node goes to the conductor the
consistent hash ring maps the node's uuid to, among the alive conductors
that load the node's hardware type (so every API process and conductor
agrees on the owner without asking anyone).

Calls are synchronous (``call``): the conductor validates the request
and takes the node lock before it answers, so the API can turn a refusal
into the right status (``code`` of the ironic_lite exception: 400
invalid steps or state, 409 NodeLocked, 503 NoFreeConductorWorker);
the long work then runs on the conductor's worker pool.

A call waits ``[api]conductor_call_timeout`` seconds. A conductor whose
heartbeat was more than two ``[conductor]heartbeat_interval`` (and at
least five seconds) old when the API last read the conductors is
*down* (killed, paused, cut off) even before ``heartbeat_timeout`` takes
it out of the ring: a request goes to the next conductor of the ring
instead, at once when the owner already looks down, or after the
timeout when it turns out to be. The node lock keeps that safe: a node
the down conductor still holds answers ``NodeLocked`` (409).

1.0: create_node, update_node, destroy_node, change_power_state,
     do_provisioning_action, get_clean_steps, continue_node_clean
1.1: update_node takes expected_revision
1.2: update_volume, destroy_volume (volume connectors and targets),
     get_supported_indicators, get_indicator_state, set_indicator_state
1.3: create_node takes provision_state (available: API before 1.11);
     the hash ring honours the nodes' and conductors' conductor groups;
     set_target_raid_config
1.4: add_node_traits, remove_node_traits
1.5: create_port, update_port, destroy_port, update_portgroup,
     destroy_portgroup, get_boot_device, set_boot_device,
     get_supported_boot_devices, get_driver_properties, inject_nmi;
     do_provisioning_action takes configdrive
1.6: validate_driver_interfaces, set_console_mode,
     get_console_information, vendor_passthru,
     get_node_vendor_passthru_methods, driver_vendor_passthru,
     get_driver_vendor_passthru_methods, get_raid_logical_disk_properties,
     vif_attach, vif_detach, vif_list; do_provisioning_action takes
     rescue_password
1.7: get_node_with_token, heartbeat (ramdisk agents)
1.8: create_allocation, destroy_allocation
1.9: change_node_boot_mode, change_node_secure_boot
1.10: do_provisioning_action takes deploy_steps
1.11: get_virtual_media, attach_virtual_media, detach_virtual_media
1.12: continue_inspection
1.13: do_provisioning_action takes service_steps and disable_ramdisk
"""

import threading
import time
from typing import Any

from oslo_config import cfg
from oslo_log import log as logging
import oslo_messaging as messaging

from ironic_lite import exception
from ironic_lite.common import hash_ring
from ironic_lite.common import states
from ironic_lite.db import conductors as db_conductors
from lite_common import db as lite_db
from lite_common import rpc
from lite_common.context import RequestContext

LOG = logging.getLogger(__name__)

TOPIC = 'ironic-lite.conductor'
VERSION = '1.13'
#: Conductors of the ring a request may try, in ring order.
HOSTS_PER_REQUEST = 3
#: Missed heartbeats after which a conductor is down for the requests.
DOWN_AFTER_HEARTBEATS = 2
#: Seconds an API process keeps its hash ring before reading the alive
#: conductors again.
RING_REFRESH_SECONDS = 5.0


class _RingCache:
    """Hash rings per hardware type, rebuilt every few seconds.

    The alive conductors are read at most every
    :data:`RING_REFRESH_SECONDS`; a ring is built once per hardware type
    and read, not once per request.
    """

    def __init__(self, conf: cfg.ConfigOpts) -> None:
        self.conf = conf
        self._lock = threading.Lock()
        self._alive: list[dict[str, Any]] = []
        #: When ``_alive`` was read (its heartbeats are as of then).
        self._read_wall = lite_db.utcnow()
        self._rings: dict[tuple[str, str], hash_ring.HashRing | None] = {}
        self._read_at = -RING_REFRESH_SECONDS

    def alive(
        self, context: RequestContext, refresh: bool = False
    ) -> list[dict[str, Any]]:
        with self._lock:
            now = time.monotonic()
            if refresh or now - self._read_at >= RING_REFRESH_SECONDS:
                self._read_wall = lite_db.utcnow()
                self._alive = db_conductors.list_alive(
                    context, self.conf.conductor.heartbeat_timeout
                )
                self._rings = {}
                self._read_at = now
            return self._alive

    def ring(
        self,
        context: RequestContext,
        driver: str,
        refresh: bool = False,
        conductor_group: str = '',
    ) -> hash_ring.HashRing | None:
        """The ring of ``driver`` in ``conductor_group``; None when no
        alive conductor of the group loads it."""
        alive = self.alive(context, refresh)
        key = (conductor_group, driver)
        with self._lock:
            if key not in self._rings:
                try:
                    self._rings[key] = hash_ring.ring_for_driver(
                        alive, driver, conductor_group=conductor_group
                    )
                except exception.NoValidHost:
                    self._rings[key] = None
            return self._rings[key]

    def hosts_for(
        self, context: RequestContext, node: dict[str, Any]
    ) -> list[str]:
        """The conductor owning ``node`` (of its conductor group),
        then the ones the node goes to if it leaves the ring.

        :raises NoValidHost: no alive conductor of the node's group
            loads its hardware type.
        """
        group = hash_ring.node_group(node)
        ring = self.ring(context, node['driver'], conductor_group=group)
        if ring is None:
            # A conductor may have started since the last read.
            ring = self.ring(
                context, node['driver'], refresh=True, conductor_group=group
            )
        if ring is None:
            in_group = f' in conductor group "{group}"' if group else ''
            raise exception.NoValidHost(
                reason=f'No conductor service registered which supports '
                f'driver {node["driver"]}{in_group}.'
            )
        return ring.get_hosts(node['uuid'], HOSTS_PER_REQUEST)

    def any_hosts(self, context: RequestContext, key: str) -> list[str]:
        """Alive conductors for work that belongs to no node yet (an
        allocation being made), by a ring over all of them keyed by
        ``key``.

        :raises NoValidHost: no conductor is alive.
        """
        hosts = [row['hostname'] for row in self.alive(context)]
        if not hosts:
            hosts = [
                row['hostname'] for row in self.alive(context, refresh=True)
            ]
        if not hosts:
            raise exception.NoValidHost(
                reason='No conductor service is registered and alive.'
            )
        return hash_ring.HashRing(hosts).get_hosts(key, HOSTS_PER_REQUEST)

    def looks_down(self, host: str) -> bool:
        """Whether ``host`` left the ring or missed
        :data:`DOWN_AFTER_HEARTBEATS` heartbeats (as last read)."""
        with self._lock:
            alive, read_at = list(self._alive), self._read_wall
        if host not in {row['hostname'] for row in alive}:
            return True
        return host in db_conductors.down_hosts(
            alive,
            self.conf.conductor.heartbeat_interval,
            DOWN_AFTER_HEARTBEATS,
            as_of=read_at,
        )


class ConductorAPI:
    """What ironic-lite-api asks of the conductors."""

    def __init__(
        self, conf: cfg.ConfigOpts, timeout: int | None = None
    ) -> None:
        self.timeout = timeout or conf.api.conductor_call_timeout
        self.client = rpc.get_client(
            conf,
            messaging.Target(topic=TOPIC, version=VERSION),
            timeout=self.timeout,
            expected=exception.RPC_EXPECTED,
        )
        self.rings = _RingCache(conf)

    def _prepare(self, context: RequestContext, node: dict[str, Any]) -> Any:
        host = self.rings.hosts_for(context, node)[0]
        return self.client.prepare(server=host)

    def _call(
        self,
        context: RequestContext,
        node: dict[str, Any],
        method: str,
        **kwargs: Any,
    ) -> Any:
        """``method`` on the node's conductor, or on the next one of the
        ring when it is down (see the module docstring)."""
        return self._call_hosts(
            context,
            self.rings.hosts_for(context, node),
            node['uuid'],
            method,
            **kwargs,
        )

    def _call_any(
        self, context: RequestContext, key: str, method: str, **kwargs: Any
    ) -> Any:
        """``method`` on any alive conductor (chosen by ``key``)."""
        return self._call_hosts(
            context, self.rings.any_hosts(context, key), key, method, **kwargs
        )

    def _call_hosts(
        self,
        context: RequestContext,
        hosts: list[str],
        key: str,
        method: str,
        **kwargs: Any,
    ) -> Any:
        error: messaging.MessagingTimeout | None = None
        for index, host in enumerate(hosts):
            last = index == len(hosts) - 1
            if not last and self.rings.looks_down(host):
                continue
            try:
                return self.client.prepare(server=host).call(
                    context, method, **kwargs
                )
            except messaging.MessagingTimeout as exc:
                error = exc
                self.rings.alive(context, refresh=True)
                if last or not self.rings.looks_down(host):
                    raise
                LOG.warning(
                    'Conductor %(host)s did not answer %(method)s '
                    'for %(key)s within %(timeout)s s and looks '
                    'down; trying the next conductor',
                    {
                        'host': host,
                        'method': method,
                        'key': key,
                        'timeout': self.timeout,
                    },
                )
        assert error is not None
        raise error

    def create_node(
        self,
        context: RequestContext,
        values: dict[str, Any],
        provision_state: str = states.ENROLL,
    ) -> dict[str, Any]:
        """Validate the hardware type and interfaces, insert the node
        in ``provision_state`` (``enroll``, or ``available``: requests
        before API 1.11).

        ``values`` must hold ``uuid`` and ``driver``; returns the node.
        """
        kwargs: dict[str, Any] = {}
        if provision_state != states.ENROLL:
            kwargs['provision_state'] = provision_state
        return self._call(
            context, values, 'create_node', values=values, **kwargs
        )

    def update_node(
        self,
        context: RequestContext,
        node: dict[str, Any],
        values: dict[str, Any],
        expected_revision: int | None = None,
    ) -> dict[str, Any]:
        """Apply ``values`` under the node lock; returns the node. With
        ``expected_revision``, only if the node is still at it
        (:class:`~ironic_lite.exception.NodeChanged` otherwise)."""
        kwargs: dict[str, Any] = {}
        if expected_revision is not None:
            kwargs['expected_revision'] = expected_revision
        return self._call(
            context,
            node,
            'update_node',
            node_uuid=node['uuid'],
            values=values,
            **kwargs,
        )

    def destroy_node(
        self, context: RequestContext, node: dict[str, Any]
    ) -> None:
        self._call(context, node, 'destroy_node', node_uuid=node['uuid'])

    def change_power_state(
        self, context: RequestContext, node: dict[str, Any], target: str
    ) -> None:
        self._call(
            context,
            node,
            'change_power_state',
            node_uuid=node['uuid'],
            target=target,
        )

    def do_provisioning_action(
        self,
        context: RequestContext,
        node: dict[str, Any],
        action: str,
        clean_steps: list[dict[str, Any]] | None = None,
        configdrive: str | dict[str, Any] | None = None,
        rescue_password: str | None = None,
        deploy_steps: list[dict[str, Any]] | None = None,
        service_steps: list[dict[str, Any]] | None = None,
        disable_ramdisk: bool | None = None,
    ) -> None:
        """``action``: an event of :data:`states.ALLOWED_PROVISION_VERBS`;
        ``configdrive`` (a deployment) and ``rescue_password`` (rescue):
        kept in ``instance_info``."""
        kwargs: dict[str, Any] = {}
        if configdrive:
            # Only when given: a conductor of 1.4 takes no such argument.
            kwargs['configdrive'] = configdrive
        if rescue_password:
            # Likewise (1.6).
            kwargs['rescue_password'] = rescue_password
        if deploy_steps:
            # Likewise (1.10).
            kwargs['deploy_steps'] = deploy_steps
        if service_steps:
            # Likewise (1.13).
            kwargs['service_steps'] = service_steps
        if disable_ramdisk is not None and service_steps:
            kwargs['disable_ramdisk'] = disable_ramdisk
        self._call(
            context,
            node,
            'do_provisioning_action',
            node_uuid=node['uuid'],
            action=action,
            clean_steps=clean_steps,
            **kwargs,
        )

    def set_target_raid_config(
        self,
        context: RequestContext,
        node: dict[str, Any],
        target_raid_config: dict[str, Any],
    ) -> None:
        """Validate and store the node's target RAID configuration."""
        self._call(
            context,
            node,
            'set_target_raid_config',
            node_uuid=node['uuid'],
            target_raid_config=target_raid_config,
        )

    def get_clean_steps(
        self, context: RequestContext, node: dict[str, Any]
    ) -> dict[str, list[dict[str, Any]]]:
        """``{'automated': [...in execution order], 'manual': [...]}``."""
        return self._call(
            context, node, 'get_clean_steps', node_uuid=node['uuid']
        )

    def update_volume(
        self,
        context: RequestContext,
        node: dict[str, Any],
        kind: str,
        uuid: str,
        values: dict[str, Any],
    ) -> dict[str, Any]:
        """Change a volume connector or target (``kind``
        ``volume_connector`` or ``volume_target``) of ``node`` (the node
        it belongs to after the change); returns it."""
        return self._call(
            context,
            node,
            'update_volume',
            node_uuid=node['uuid'],
            kind=kind,
            uuid=uuid,
            values=values,
        )

    def destroy_volume(
        self,
        context: RequestContext,
        node: dict[str, Any],
        kind: str,
        uuid: str,
    ) -> None:
        self._call(
            context,
            node,
            'destroy_volume',
            node_uuid=node['uuid'],
            kind=kind,
            uuid=uuid,
        )

    def create_port(
        self,
        context: RequestContext,
        node: dict[str, Any],
        values: dict[str, Any],
    ) -> dict[str, Any]:
        """Create a port of ``node`` (``values`` hold its node_id)."""
        return self._call(
            context, node, 'create_port', node_uuid=node['uuid'], values=values
        )

    def update_port(
        self,
        context: RequestContext,
        node: dict[str, Any],
        uuid: str,
        values: dict[str, Any],
    ) -> dict[str, Any]:
        """Change a port of ``node`` (the node it belongs to after the
        change); returns it."""
        return self._call(
            context,
            node,
            'update_port',
            node_uuid=node['uuid'],
            uuid=uuid,
            values=values,
        )

    def destroy_port(
        self, context: RequestContext, node: dict[str, Any], uuid: str
    ) -> None:
        self._call(
            context, node, 'destroy_port', node_uuid=node['uuid'], uuid=uuid
        )

    def update_portgroup(
        self,
        context: RequestContext,
        node: dict[str, Any],
        uuid: str,
        values: dict[str, Any],
    ) -> dict[str, Any]:
        """Change a portgroup of ``node`` (the node it belongs to after
        the change); returns it."""
        return self._call(
            context,
            node,
            'update_portgroup',
            node_uuid=node['uuid'],
            uuid=uuid,
            values=values,
        )

    def destroy_portgroup(
        self, context: RequestContext, node: dict[str, Any], uuid: str
    ) -> None:
        self._call(
            context,
            node,
            'destroy_portgroup',
            node_uuid=node['uuid'],
            uuid=uuid,
        )

    def get_driver_properties(
        self, context: RequestContext, driver_name: str
    ) -> dict[str, str]:
        """On a conductor that loads hardware type ``driver_name``.

        :raises NoValidHost: none does.
        """
        return self._call(
            context,
            {'uuid': driver_name, 'driver': driver_name},
            'get_driver_properties',
            driver_name=driver_name,
        )

    def validate_driver_interfaces(
        self, context: RequestContext, node: dict[str, Any]
    ) -> dict[str, dict[str, Any]]:
        return self._call(
            context, node, 'validate_driver_interfaces', node_uuid=node['uuid']
        )

    def set_console_mode(
        self, context: RequestContext, node: dict[str, Any], enabled: bool
    ) -> None:
        self._call(
            context,
            node,
            'set_console_mode',
            node_uuid=node['uuid'],
            enabled=enabled,
        )

    def get_console_information(
        self, context: RequestContext, node: dict[str, Any]
    ) -> dict[str, Any]:
        return self._call(
            context, node, 'get_console_information', node_uuid=node['uuid']
        )

    def vendor_passthru(
        self,
        context: RequestContext,
        node: dict[str, Any],
        method: str,
        http_method: str,
        args: dict[str, Any],
    ) -> dict[str, Any]:
        return self._call(
            context,
            node,
            'vendor_passthru',
            node_uuid=node['uuid'],
            driver_method=method,
            http_method=http_method,
            args=args,
        )

    def get_node_vendor_passthru_methods(
        self, context: RequestContext, node: dict[str, Any]
    ) -> dict[str, Any]:
        return self._call(
            context,
            node,
            'get_node_vendor_passthru_methods',
            node_uuid=node['uuid'],
        )

    def driver_vendor_passthru(
        self,
        context: RequestContext,
        driver_name: str,
        method: str,
        http_method: str,
        args: dict[str, Any],
    ) -> dict[str, Any]:
        """On a conductor that loads hardware type ``driver_name``."""
        return self._call(
            context,
            {'uuid': driver_name, 'driver': driver_name},
            'driver_vendor_passthru',
            driver_name=driver_name,
            driver_method=method,
            http_method=http_method,
            args=args,
        )

    def get_driver_vendor_passthru_methods(
        self, context: RequestContext, driver_name: str
    ) -> dict[str, Any]:
        return self._call(
            context,
            {'uuid': driver_name, 'driver': driver_name},
            'get_driver_vendor_passthru_methods',
            driver_name=driver_name,
        )

    def get_raid_logical_disk_properties(
        self, context: RequestContext, driver_name: str
    ) -> dict[str, str]:
        """On a conductor that loads hardware type ``driver_name``."""
        return self._call(
            context,
            {'uuid': driver_name, 'driver': driver_name},
            'get_raid_logical_disk_properties',
            driver_name=driver_name,
        )

    def vif_attach(
        self,
        context: RequestContext,
        node: dict[str, Any],
        vif_info: dict[str, Any],
    ) -> None:
        self._call(
            context,
            node,
            'vif_attach',
            node_uuid=node['uuid'],
            vif_info=vif_info,
        )

    def vif_detach(
        self, context: RequestContext, node: dict[str, Any], vif_id: str
    ) -> None:
        self._call(
            context, node, 'vif_detach', node_uuid=node['uuid'], vif_id=vif_id
        )

    def vif_list(
        self, context: RequestContext, node: dict[str, Any]
    ) -> list[dict[str, Any]]:
        return self._call(context, node, 'vif_list', node_uuid=node['uuid'])

    def inject_nmi(
        self, context: RequestContext, node: dict[str, Any]
    ) -> None:
        self._call(context, node, 'inject_nmi', node_uuid=node['uuid'])

    def get_boot_device(
        self, context: RequestContext, node: dict[str, Any]
    ) -> dict[str, Any]:
        return self._call(
            context, node, 'get_boot_device', node_uuid=node['uuid']
        )

    def get_supported_boot_devices(
        self, context: RequestContext, node: dict[str, Any]
    ) -> list[str]:
        return self._call(
            context, node, 'get_supported_boot_devices', node_uuid=node['uuid']
        )

    def set_boot_device(
        self,
        context: RequestContext,
        node: dict[str, Any],
        device: str,
        persistent: bool,
    ) -> None:
        self._call(
            context,
            node,
            'set_boot_device',
            node_uuid=node['uuid'],
            device=device,
            persistent=persistent,
        )

    def add_node_traits(
        self,
        context: RequestContext,
        node: dict[str, Any],
        traits: list[str],
        replace: bool,
    ) -> list[str]:
        return self._call(
            context,
            node,
            'add_node_traits',
            node_uuid=node['uuid'],
            traits=traits,
            replace=replace,
        )

    def remove_node_traits(
        self,
        context: RequestContext,
        node: dict[str, Any],
        traits: list[str] | None,
    ) -> list[str]:
        return self._call(
            context,
            node,
            'remove_node_traits',
            node_uuid=node['uuid'],
            traits=traits,
        )

    def get_supported_indicators(
        self, context: RequestContext, node: dict[str, Any]
    ) -> dict[str, dict[str, Any]]:
        return self._call(
            context, node, 'get_supported_indicators', node_uuid=node['uuid']
        )

    def get_indicator_state(
        self,
        context: RequestContext,
        node: dict[str, Any],
        component: str,
        indicator: str,
    ) -> str:
        return self._call(
            context,
            node,
            'get_indicator_state',
            node_uuid=node['uuid'],
            component=component,
            indicator=indicator,
        )

    def set_indicator_state(
        self,
        context: RequestContext,
        node: dict[str, Any],
        component: str,
        indicator: str,
        state: str,
    ) -> None:
        self._call(
            context,
            node,
            'set_indicator_state',
            node_uuid=node['uuid'],
            component=component,
            indicator=indicator,
            state=state,
        )

    def get_node_with_token(
        self, context: RequestContext, node: dict[str, Any]
    ) -> dict[str, Any]:
        result: dict[str, Any] = self._call(
            context, node, 'get_node_with_token', node_uuid=node['uuid']
        )
        return result

    def heartbeat(
        self,
        context: RequestContext,
        node: dict[str, Any],
        callback_url: str,
        agent_version: str | None,
        agent_token: str | None,
        agent_verify_ca: str | None,
        agent_status: str | None,
        agent_status_message: str | None,
    ) -> None:
        self._call(
            context,
            node,
            'heartbeat',
            node_uuid=node['uuid'],
            callback_url=callback_url,
            agent_version=agent_version,
            agent_token=agent_token,
            agent_verify_ca=agent_verify_ca,
            agent_status=agent_status,
            agent_status_message=agent_status_message,
        )

    def create_allocation(
        self,
        context: RequestContext,
        values: dict[str, Any],
        node: dict[str, Any] | None = None,
    ) -> dict[str, Any]:
        """On the node's conductor when backfilling ``node``, else on
        any alive conductor (which then processes the allocation)."""
        result: dict[str, Any]
        if node is not None:
            result = self._call(
                context,
                node,
                'create_allocation',
                values=values,
                node_uuid=node['uuid'],
            )
        else:
            result = self._call_any(
                context, values['uuid'], 'create_allocation', values=values
            )
        return result

    def destroy_allocation(
        self,
        context: RequestContext,
        allocation: dict[str, Any],
        node: dict[str, Any] | None = None,
    ) -> None:
        if node is not None:
            self._call(
                context,
                node,
                'destroy_allocation',
                allocation_uuid=allocation['uuid'],
            )
        else:
            self._call_any(
                context,
                allocation['uuid'],
                'destroy_allocation',
                allocation_uuid=allocation['uuid'],
            )

    def continue_inspection(
        self,
        context: RequestContext,
        node: dict[str, Any],
        inventory: dict[str, Any],
        plugin_data: dict[str, Any],
    ) -> None:
        self._call(
            context,
            node,
            'continue_inspection',
            node_uuid=node['uuid'],
            inventory=inventory,
            plugin_data=plugin_data,
        )

    def get_virtual_media(
        self, context: RequestContext, node: dict[str, Any]
    ) -> Any:
        return self._call(
            context, node, 'get_virtual_media', node_uuid=node['uuid']
        )

    def attach_virtual_media(
        self,
        context: RequestContext,
        node: dict[str, Any],
        device_type: str,
        image_url: str,
    ) -> None:
        self._call(
            context,
            node,
            'attach_virtual_media',
            node_uuid=node['uuid'],
            device_type=device_type,
            image_url=image_url,
        )

    def detach_virtual_media(
        self,
        context: RequestContext,
        node: dict[str, Any],
        device_types: list[str] | None,
    ) -> None:
        self._call(
            context,
            node,
            'detach_virtual_media',
            node_uuid=node['uuid'],
            device_types=device_types,
        )

    def change_node_boot_mode(
        self, context: RequestContext, node: dict[str, Any], new_state: str
    ) -> None:
        self._call(
            context,
            node,
            'change_node_boot_mode',
            node_uuid=node['uuid'],
            new_state=new_state,
        )

    def change_node_secure_boot(
        self, context: RequestContext, node: dict[str, Any], new_state: bool
    ) -> None:
        self._call(
            context,
            node,
            'change_node_secure_boot',
            node_uuid=node['uuid'],
            new_state=new_state,
        )

    def continue_node_clean(
        self, context: RequestContext, node: dict[str, Any]
    ) -> None:
        """Resume cleaning of a node in ``clean wait`` (a step's callback)."""
        self._prepare(context, node).cast(
            context, 'continue_node_clean', node_uuid=node['uuid']
        )
