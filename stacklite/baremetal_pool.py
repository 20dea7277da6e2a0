"""``stacklite-aio --baremetal-nodes N``: nova_lite boots servers on
ironic_lite nodes.

An ``ironic-compute`` agent (the ``ironic`` virt driver, talking to the
Bare Metal API over REST like any client) serves the nodes; once both
APIs answer, N ``fake-hardware`` nodes of resource class ``baremetal``
are enrolled and provided (cleaned to ``available``) through the Bare
Metal API, and a ``baremetal`` flavor asks for one of them
(``resources:CUSTOM_BAREMETAL=1``, no vCPU, RAM or disk counted), so
that::

    openstack server create --flavor baremetal --image cirros \\
        --no-network bm-vm

deploys a node, and deleting the server cleans it back to the pool.
"""

from collections.abc import Callable
import time
from typing import Any

from keystoneauth1 import http_basic
from keystoneauth1 import noauth
from keystoneauth1 import session as ks_session
import openstack
from oslo_config import cfg
from oslo_log import log as logging

LOG = logging.getLogger(__name__)
AGENT_HOST = 'ironic-compute'
FLAVOR = 'baremetal'
#: The resource class of the flavor (and of the nodes, as nova counts it).
RESOURCE_CLASS = 'CUSTOM_BAREMETAL'
FLAVOR_SPECS = {
    f'resources:{RESOURCE_CLASS}': '1',
    'resources:VCPU': '0',
    'resources:MEMORY_MB': '0',
    'resources:DISK_GB': '0',
}
NODE_PROPERTIES = {
    'cpus': 8,
    'memory_mb': 16384,
    'local_gb': 100,
    'cpu_arch': 'x86_64',
}
READY_TIMEOUT = 120
#: A connection to ``'baremetal'`` or ``'compute'`` as the all-in-one's
#: administrator (see :func:`basic_connector`).
Connector = Callable[[str], Any]


def configure(
    conf: cfg.ConfigOpts, bm_url: str, users: dict[str, str] | None
) -> None:
    """The [ironic] options of the ironic-compute agent."""
    conf.set_override('endpoint_override', bm_url, group='ironic')
    if users is None:
        conf.set_override('auth_type', 'none', group='ironic')
    else:
        conf.set_override('auth_type', 'http_basic', group='ironic')
        conf.set_override('username', 'admin', group='ironic')
        conf.set_override('password', users['admin'], group='ironic')
    conf.set_override('deploy_timeout', 300, group='ironic')
    conf.set_override('api_retry_interval', 1, group='ironic')
    # New nodes and nodes back from cleaning are offered within this.
    conf.set_override('resource_update_interval', 5)


def connection(
    url: str, users: dict[str, str] | None, **overrides: Any
) -> Any:
    auth: Any
    if users is None:
        auth = noauth.NoAuth(endpoint=url)
    else:
        auth = http_basic.HTTPBasicAuth(
            endpoint=url, username='admin', password=users['admin']
        )
    return openstack.connection.Connection(
        session=ks_session.Session(auth=auth), **overrides
    )


def wait_up(check: Any) -> None:
    end = time.monotonic() + READY_TIMEOUT
    while True:
        try:
            check()
            return
        except Exception:
            if time.monotonic() > end:
                raise
            time.sleep(1)


def _flavor(compute: Any) -> None:
    if any(f.name == FLAVOR for f in compute.flavors()):
        return
    flavor = compute.create_flavor(
        name=FLAVOR, vcpus=1, ram=1, disk=0, id=FLAVOR
    )
    compute.create_flavor_extra_specs(flavor, FLAVOR_SPECS)


def _nodes(baremetal: Any, count: int) -> None:
    existing = {n.name for n in baremetal.nodes()}
    for index in range(1, count + 1):
        name = f'bm-{index}'
        if name in existing:
            continue
        node = baremetal.create_node(
            name=name,
            driver='fake-hardware',
            resource_class=FLAVOR,
            properties=NODE_PROPERTIES,
        )
        baremetal.set_node_provision_state(
            node, 'manage', wait=True, timeout=READY_TIMEOUT
        )
        baremetal.set_node_provision_state(
            node, 'provide', wait=True, timeout=READY_TIMEOUT
        )
        LOG.info('Bare metal node %s (%s) is available', name, node.id)


def basic_connector(
    api_url: str, bm_url: str, users: dict[str, str] | None
) -> Connector:
    """Connections with http_basic (``users``) or none, at the APIs'
    URLs."""

    def connect(service: str) -> Any:
        if service == 'baremetal':
            return connection(
                bm_url, users, baremetal_endpoint_override=bm_url
            )
        return connection(
            f'{api_url}/v2.1',
            users,
            compute_endpoint_override=f'{api_url}/v2.1',
        )

    return connect


def populate(connect: Connector, count: int) -> None:
    """Enroll and provide the nodes, create the flavor (idempotent)."""
    conn = connect('baremetal')
    compute = connect('compute')
    wait_up(lambda: list(conn.baremetal.nodes(limit=1)))
    wait_up(lambda: list(compute.compute.flavors()))
    _flavor(compute.compute)
    _nodes(conn.baremetal, count)


def offered(conf: cfg.ConfigOpts) -> int:
    """The bare metal nodes nova_lite's scheduler can place a
    ``baremetal`` server on now: free, of the flavor's resource class,
    reported by an agent whose service is up (what a NoValidHost
    counts, from the same records)."""
    from lite_common import context as lite_context
    from nova_lite.db import api as db_api
    from nova_lite.scheduler import claims
    from nova_lite.scheduler import diagnosis

    ctx = lite_context.get_admin_context()
    with db_api.context_manager.reader.using(ctx) as session:
        counts = diagnosis.node_counts(
            session, conf, RESOURCE_CLASS, claims.WHOLE_MACHINE_TYPE
        )
    return counts['free_served']


def provide_and_offer(
    connect: Connector,
    conf: cfg.ConfigOpts,
    count: int,
    timeout: float = READY_TIMEOUT,
) -> None:
    """Enroll and provide the nodes, create the flavor, then wait until
    the scheduler can place a server on each (the agent reports every
    ``resource_update_interval``): the all-in-one says it is ready only
    then. RuntimeError after ``timeout`` seconds."""
    started = time.monotonic()
    populate(connect, count)
    end = time.monotonic() + timeout
    while (ready := offered(conf)) < count:
        if time.monotonic() > end:
            raise RuntimeError(
                f'the {count} bare metal node(s) are available in the Bare '
                f'Metal API, but the {AGENT_HOST} agent offered only '
                f'{ready} to the scheduler within {timeout:.0f} s; see '
                'its lines in the log'
            )
        time.sleep(0.5)
    LOG.info(
        '%d bare metal node(s) available and offered to the scheduler '
        'in %.1f s',
        count,
        time.monotonic() - started,
    )
