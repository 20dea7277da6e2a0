"""The ``ironic`` virt driver: one compute agent serves the nodes of a
Bare Metal API (ironic_lite's or upstream Ironic's) as whole machines.

It talks to the API only through openstacksdk (never importing
ironic_lite). Every node becomes a compute node whose uuid and
hypervisor_hostname are the node's uuid; no compute_id file is kept
(the multi-node exemption of the stable compute identity). A node
offers its resource class (``CUSTOM_<CLASS>``, as a flavor's
``resources:CUSTOM_<CLASS>=1`` asks) only while it can take an
instance: ``available``, not in maintenance, without a fault or an
instance. A node's traits are reported with it, so that a flavor's
``trait:<NAME>=required`` (``forbidden``) takes only nodes that have
(lack) them. A spawn sets the node's instance_uuid and instance_info
(the flavor's required traits included, for deploy templates), attaches
the requested ports as VIFs, and deploys it (``active``) with a config
drive when the server has one; a destroy detaches the VIFs and
undeploys it (``deleted``), after which the Bare Metal conductor cleans
it; it returns to the pool only once ``available`` again, and how the
cleaning ends is an event of the server's delete action (see
:mod:`nova_lite.virt.ironic_cleaning`).
"""

import hashlib
import time
from typing import Any

from keystoneauth1 import exceptions as ks_exc
import openstack
from openstack import exceptions as sdk_exc
from oslo_config import cfg
from oslo_log import log as logging

from lite_common import context as lite_context
from lite_common import service_client
from nova_lite import exception
from nova_lite.common import power_state
from nova_lite.common import requested_ports
from nova_lite.objects import service as service_obj
from nova_lite.scheduler import claim_terms
from nova_lite.virt import driver
from nova_lite.virt import ironic_cleaning
from nova_lite.virt import ironic_configdrive

LOG = logging.getLogger(__name__)
#: The node fields the driver reads (one list call per report).
FIELDS = (
    'uuid',
    'name',
    'instance_uuid',
    'provision_state',
    'power_state',
    'maintenance',
    'fault',
    'resource_class',
    'properties',
    'last_error',
    'conductor_group',
    'instance_info',
    'traits',
)
WAIT_INTERVAL = 5
_POWER = {'power on': power_state.RUNNING, 'power off': power_state.SHUTDOWN}
# Provision states from which an undeploy is asked.
_DEPLOYED = (
    'active',
    'deploy failed',
    'wait call-back',
    'deploying',
    'error',
    'rescue',
    'rescue failed',
    'rescue wait',
)


def resource_class(node: Any) -> str:
    """``CUSTOM_<CLASS>`` of a node's resource class (upstream's
    normalisation: upper case, anything but letters and digits ``_``)."""
    name = ''.join(
        c if c.isalnum() else '_'
        for c in (node.resource_class or 'baremetal').upper()
    )
    return f'CUSTOM_{name}'


def owner(node_uuid: str, peers: list[str]) -> str:
    """The peer that serves a node: the highest hash of (peer, node)
    (rendezvous hashing: a dead peer's nodes spread over the others,
    the rest stay where they are)."""
    return max(
        peers,
        key=lambda peer: hashlib.sha256(
            f'{peer}/{node_uuid}'.encode()
        ).digest(),
    )


def schedulable(node: Any) -> bool:
    return (
        node.provision_state == 'available'
        and not node.is_maintenance
        and not node.fault
        and not node.instance_id
    )


def bare_metal_connection(opts: Any) -> Any:
    """An openstacksdk connection to the Bare Metal API as ``[ironic]``
    says (``opts`` is that group)."""
    session = service_client.session(opts, 'ironic', exception.ConfigError)
    endpoint: dict[str, Any] = (
        {'baremetal_endpoint_override': opts.endpoint_override}
        if opts.endpoint_override
        else {'baremetal_interface': opts.valid_interfaces}
    )
    return openstack.connection.Connection(
        session=session, region_name=opts.region_name, **endpoint
    )


def _partition_sizes(flavor: Any) -> dict[str, str]:
    """The flavor's swap and ephemeral disk, as upstream's driver puts
    them in instance_info (a partition image's other partitions)."""
    sizes = {'swap_mb': str(getattr(flavor, 'swap', 0) or 0)}
    ephemeral = getattr(flavor, 'ephemeral_gb', 0) or 0
    if ephemeral:
        sizes['ephemeral_gb'] = str(ephemeral)
        sizes['ephemeral_format'] = 'ext4'
    return sizes


class IronicDriver(driver.ComputeDriver):
    manages_many_nodes = True
    hypervisor_type = 'ironic'

    def __init__(
        self, conf: cfg.ConfigOpts, host: str, state_path: str
    ) -> None:
        super().__init__(conf, host, state_path)
        self._conn: Any = None
        self._nodes: dict[str, Any] = {}
        self._told: set[str] = set()
        self._cleaning = ironic_cleaning.CleaningWatch(state_path, host)

    # the API -----------------------------------------------------------

    @property
    def conn(self) -> Any:
        if self._conn is None:
            self._conn = bare_metal_connection(self.conf.ironic)
        return self._conn

    def _node(self, uuid: str) -> Any:
        try:
            return self.conn.baremetal.get_node(uuid)
        except sdk_exc.NotFoundException:
            raise exception.VirtDriverError(
                reason=f'bare metal node {uuid} was not found'
            ) from None

    def _wait(self, node: Any, state: str, timeout: int) -> Any:
        try:
            [done] = self.conn.baremetal.wait_for_nodes_provision_state(
                [node], state, timeout=timeout, abort_on_failed_state=True
            )
            return done
        except (sdk_exc.ResourceFailure, sdk_exc.ResourceTimeout) as exc:
            now = self._node(node.id)
            raise exception.VirtDriverError(
                reason=f'node {node.id} did not become {state}: '
                f'{now.provision_state}, {now.last_error or exc}'
            ) from None

    # nodes ---------------------------------------------------------------

    def init_host(self) -> None:
        """Wait until the Bare Metal API answers (a configuration error
        stops the agent here, with its message)."""
        assert self.conn is not None
        while True:
            try:
                self.get_available_nodes()
                return
            except (sdk_exc.SDKException, ks_exc.ClientException) as exc:
                LOG.warning(
                    'Cannot list the nodes of the Bare Metal API '
                    'at %s (%s); trying again in %s s',
                    self.conf.ironic.endpoint_override,
                    exc,
                    WAIT_INTERVAL,
                )
                time.sleep(WAIT_INTERVAL)

    def get_available_nodes(self) -> list[str]:
        """The nodes this agent serves: all of them, or with
        ``peer_list`` those the hash ring of live peers gives it."""
        query: dict[str, Any] = {'fields': FIELDS}
        if self.conf.ironic.conductor_group is not None:
            query['conductor_group'] = self.conf.ironic.conductor_group
        nodes = list(self.conn.baremetal.nodes(**query))
        self._cleaning.check({n.id: n for n in nodes})
        peers = self._live_peers()
        self._nodes = {
            n.id: n
            for n in nodes
            if peers is None or owner(n.id, peers) == self.host
        }
        return sorted(self._nodes)

    def _live_peers(self) -> list[str] | None:
        """The peers up now (this agent always), None without a peer
        list. One object call for all of them."""
        peers = set(self.conf.ironic.peer_list)
        if not peers:
            return None
        context = lite_context.get_admin_context()
        live = {
            s.host
            for s in service_obj.ServiceList.get_all(
                context, binary=service_obj.COMPUTE_BINARY
            )
            if s.host in peers and s.is_up(self.conf.service_down_time)
        }
        return sorted(live | {self.host})

    def get_node_uuid(self, nodename: str) -> str:
        return nodename

    def get_node_resources(self, nodename: str) -> driver.NodeResources:
        node = self._nodes.get(nodename) or self._node(nodename)
        self._tell_failures(node)
        props = node.properties or {}
        return driver.NodeResources(
            vcpus=int(props.get('cpus') or 0),
            memory_mb=int(props.get('memory_mb') or 0),
            local_gb=int(props.get('local_gb') or 0),
            hypervisor_type=self.hypervisor_type,
            hypervisor_version=1,
            hypervisor_hostname=nodename,
            resource_class=resource_class(node) if schedulable(node) else None,
            traits=sorted(node.traits or []),
        )

    def _tell_failures(self, node: Any) -> None:
        """A node that failed (cleaning, deploy, a fault) is out of the
        pool until an operator acts: said once, with its last error."""
        failed = (
            node.provision_state in ('clean failed', 'deploy failed', 'error')
            or node.fault
        )
        if not failed:
            self._told.discard(node.id)
            return
        if node.id in self._told:
            return
        self._told.add(node.id)
        LOG.warning(
            'Bare metal node %s (%s) is out of the pool: %s%s; '
            'last error: %s. See "openstack baremetal node show '
            '%s"; once fixed, make it available again (manage, '
            'provide).',
            node.id,
            node.name,
            node.provision_state,
            f', fault {node.fault}' if node.fault else '',
            node.last_error,
            node.id,
        )

    def list_instance_uuids(self) -> list[str]:
        if not self._nodes:
            self.get_available_nodes()
        return sorted(
            n.instance_id for n in self._nodes.values() if n.instance_id
        )

    def _node_of(self, instance: Any) -> Any:
        """The node holding the instance, None when none does."""
        found = list(
            self.conn.baremetal.nodes(instance_id=instance.uuid, fields=FIELDS)
        )
        return found[0] if found else None

    # spawn and destroy ---------------------------------------------------

    def spawn(self, instance: Any, image_ref: str | None = None) -> None:
        node = self._node(instance.node)
        drive = self._config_drive(instance)
        info: dict[str, Any] = {
            'image_source': image_ref or instance.image_ref,
            'root_gb': str(instance.root_gb),
            'display_name': instance.display_name or '',
            **_partition_sizes(instance.flavor),
        }
        required, _forbidden = claim_terms.flavor_traits(instance.flavor)
        if required:
            info['traits'] = list(required)
        try:
            self.conn.baremetal.update_node(
                node, instance_id=instance.uuid, instance_info=info
            )
        except sdk_exc.ConflictException as exc:
            raise exception.VirtDriverError(
                reason=f'node {node.id} is taken: {exc}'
            ) from None
        LOG.info(
            'Deploying on bare metal node %s%s',
            node.id,
            ' with a config drive' if drive else '',
            instance=instance,
        )
        try:
            self._plug_vifs(node, instance)
            self._deploy(node, 'active', drive)
            self._wait(node, 'active', self.conf.ironic.deploy_timeout)
        except Exception:
            self._release(instance)
            raise

    def _config_drive(self, instance: Any) -> dict[str, Any] | None:
        """The config drive's documents when the server has one."""
        if not ironic_configdrive.required(self.conf, instance):
            return None
        return ironic_configdrive.documents(instance)

    def _deploy(
        self, node: Any, target: str, drive: dict[str, Any] | None
    ) -> None:
        try:
            self.conn.baremetal.set_node_provision_state(
                node, target, config_drive=drive
            )
        except sdk_exc.NotSupported as exc:
            raise exception.VirtDriverError(
                reason='the Bare Metal API cannot build a config drive '
                f'(API 1.56 is needed): {exc}'
            ) from None

    def _plug_vifs(self, node: Any, instance: Any) -> None:
        """Attach the server's requested ports as VIFs of the node."""
        for port in requested_ports.decode(instance.system_metadata):
            try:
                self.conn.baremetal.attach_vif_to_node(node, port)
            except sdk_exc.SDKException as exc:
                raise exception.VirtDriverError(
                    reason=f'cannot attach VIF {port} to bare metal node '
                    f'{node.id}: {exc}'
                ) from None
            LOG.info(
                'VIF %s attached to bare metal node %s',
                port,
                node.id,
                instance=instance,
            )

    def _unplug_vifs(self, node: Any, instance: Any) -> None:
        """Detach the server's ports from the node (one that cannot be
        detached is logged: the node's undeploy goes on)."""
        for port in requested_ports.decode(instance.system_metadata):
            try:
                self.conn.baremetal.detach_vif_from_node(node, port)
            except sdk_exc.SDKException as exc:
                LOG.warning(
                    'Cannot detach VIF %s from bare metal node %s: %s',
                    port,
                    node.id,
                    exc,
                    instance=instance,
                )

    def _release(self, instance: Any) -> None:
        """After a failed deploy: undeploy, or free a node never
        deployed."""
        node = self._node_of(instance)
        if node is None:
            return
        self._unplug_vifs(node, instance)
        if node.provision_state in _DEPLOYED:
            self.conn.baremetal.set_node_provision_state(node, 'deleted')
        elif node.provision_state == 'available':
            self.conn.baremetal.update_node(
                node, instance_id=None, instance_info={}
            )

    def destroy(self, instance: Any, destroy_disks: bool = True) -> None:
        """Undeploy the instance's node; returns once the Bare Metal
        service has taken it away from the instance (tearing down or
        cleaning). A node with no such instance: nothing to do."""
        node = self._node_of(instance)
        if node is None:
            LOG.info(
                'No bare metal node holds the instance', instance=instance
            )
            return
        self._unplug_vifs(node, instance)
        if node.provision_state in _DEPLOYED:
            LOG.info(
                'Undeploying bare metal node %s', node.id, instance=instance
            )
            self.conn.baremetal.set_node_provision_state(node, 'deleted')
            self._cleaning.start(node.id, instance.uuid)
        elif node.provision_state == 'available':
            self.conn.baremetal.update_node(
                node, instance_id=None, instance_info={}
            )
        self._nodes.pop(node.id, None)

    def power_state(self, instance: Any) -> int:
        node = self._node_of(instance)
        return (
            _POWER.get(node.power_state, power_state.NOSTATE)
            if node is not None
            else power_state.NOSTATE
        )

    # power -----------------------------------------------------------------

    def _power(self, instance: Any, target: str) -> None:
        node = self._node_of(instance)
        if node is None:
            raise exception.VirtDriverError(
                reason=f'no bare metal node holds instance {instance.uuid}'
            )
        self.conn.baremetal.set_node_power_state(
            node, target, wait=True, timeout=self.conf.ironic.deploy_timeout
        )

    def power_off(self, instance: Any) -> None:
        self._power(instance, 'power off')

    def power_update_event(self, instance: Any, target: str) -> None:
        """Ironic changed the node's power itself and says so: nothing
        to do on the node (its power state is read afterwards)."""
        LOG.info(
            'Power update to %s from the bare metal service',
            target,
            instance=instance,
        )

    def power_on(self, instance: Any) -> None:
        self._power(instance, 'power on')

    def reboot(self, instance: Any, reboot_type: str) -> None:
        self._power(
            instance,
            'rebooting' if reboot_type == 'HARD' else 'soft rebooting',
        )

    def rebuild(self, instance: Any, image_ref: str) -> None:
        node = self._node_of(instance)
        if node is None:
            raise exception.VirtDriverError(
                reason=f'no bare metal node holds instance {instance.uuid}'
            )
        # Not the config drive read back (the API shows it masked): the
        # rebuild sends the server's again, if it has one.
        info = {
            key: value
            for key, value in (node.instance_info or {}).items()
            if key != 'configdrive'
        }
        self.conn.baremetal.update_node(
            node, instance_info={**info, 'image_source': image_ref}
        )
        drive = self._config_drive(instance)
        self._deploy(node, 'rebuild', drive)
        self._wait(node, 'active', self.conf.ironic.deploy_timeout)

    # rescue ----------------------------------------------------------------

    def _held_node(self, instance: Any) -> Any:
        node = self._node_of(instance)
        if node is None:
            raise exception.VirtDriverError(
                reason=f'no bare metal node holds instance {instance.uuid}'
            )
        return node

    def rescue(self, instance: Any, image_ref: str, password: str) -> None:
        """The node's ``rescue`` provision target (Bare Metal API 1.38):
        the node boots its rescue ramdisk with ``password``; the image is
        the Bare Metal service's rescue ramdisk, not ``image_ref``. A node
        whose rescue interface refuses (``no-rescue``): RescueNotSupported,
        nothing changed."""
        node = self._held_node(instance)
        try:
            self.conn.baremetal.set_node_provision_state(
                node, 'rescue', rescue_password=password
            )
        except sdk_exc.BadRequestException as exc:
            raise exception.RescueNotSupported(
                reason=f'bare metal node {node.id} cannot be rescued: '
                f'{exc.details or exc}'
            ) from None
        LOG.info('Rescuing bare metal node %s', node.id, instance=instance)
        self._wait(node, 'rescue', self.conf.ironic.deploy_timeout)

    def unrescue(self, instance: Any) -> None:
        """The ``unrescue`` target: the node boots its instance again
        (a node not rescued is only checked to be active)."""
        node = self._held_node(instance)
        if node.provision_state == 'active':
            return
        self.conn.baremetal.set_node_provision_state(node, 'unrescue')
        LOG.info('Unrescuing bare metal node %s', node.id, instance=instance)
        self._wait(node, 'active', self.conf.ironic.deploy_timeout)

    def _unsupported(self, instance: Any) -> None:
        raise exception.VirtDriverError(
            reason='bare metal servers cannot be paused or suspended'
        )

    pause = unpause = suspend = resume = _unsupported
