"""``stacklite-aio --baremetal-emulate N``: N emulated machines to
clean with a real agent.

A sushy-tools Redfish emulator with N fake systems and one
``ironic-lite-agent`` process per system (its disk a file in
``STATE/emulated/agent-K/``; :mod:`stacklite.emulated_machines`) start
with the all-in-one and stop with it. Once the Bare Metal API answers,
each system is enrolled as a ``redfish`` node ``emulated-K`` with the
``agent`` deploy interface and a port of the system's MAC address (the
agent's lookup finds the node by it), left in ``enroll``; then::

    openstack baremetal node manage emulated-1
    openstack baremetal node provide emulated-1

goes ``cleaning`` -> ``clean wait`` (the agent erases its disk file)
-> ``available``.

The machines survive restarts of the all-in-one as machines survive a
restart of the control plane: the emulator listens on its port of
before (recorded in ``STATE/emulated/emulator.port``; should another
process hold it, on a new port, and the enrolled nodes'
``redfish_address`` is updated to it), disks and power states stay, and
the emulator and agents that a killed all-in-one left running are
stopped before new ones start (:mod:`stacklite.emulated_machines`).
"""

from pathlib import Path
from typing import Any

from oslo_config import cfg
from oslo_log import log as logging

from stacklite import baremetal_pool
from stacklite import emulated_machines

LOG = logging.getLogger(__name__)
#: Seconds between two heartbeats of the agents: the conductor learns
#: that a step ended at the next heartbeat.
HEARTBEAT_INTERVAL = 2.0
#: Bytes of each machine's disk file (sparse until cleaned): room for an
#: image and the 64 MiB config drive partition at its end.
DISK_SIZE = 128 * emulated_machines.MIB
ENABLED = {
    'enabled_hardware_types': ['fake-hardware', 'redfish'],
    'enabled_power_interfaces': ['fake', 'redfish'],
    'enabled_management_interfaces': ['fake', 'redfish'],
    'enabled_deploy_interfaces': ['fake', 'agent'],
}


def configure(conf: cfg.ConfigOpts) -> None:
    """ironic_lite's options for emulated redfish nodes and agents."""
    for name, value in ENABLED.items():
        conf.set_override(name, value)
    conf.set_override('clean_step_poll_interval', 1, group='conductor')
    conf.set_override('power_state_poll_interval', 0.5, group='redfish')
    # The agents heartbeat every HEARTBEAT_INTERVAL: a token whose lookup
    # answer was lost is made again after this, not upstream's 300 s.
    conf.set_override('ramdisk_heartbeat_timeout', 30, group='api')


def start(
    state: Path,
    count: int,
    bm_url: str,
    log_rotation: emulated_machines.LogRotation | None = None,
    emulator_port: int | None = None,
    agent_ports: int | None = None,
) -> emulated_machines.EmulatedMachines:
    """The emulator and the agents (stopped again if any fails); the
    agents' logs rotated as ``log_rotation`` says; the ports as
    :class:`emulated_machines.EmulatedMachines` takes them."""
    machines = emulated_machines.EmulatedMachines(
        state / 'emulated',
        count,
        bm_url,
        heartbeat_interval=HEARTBEAT_INTERVAL,
        disk_size=DISK_SIZE,
        log_rotation=log_rotation,
        emulator_port=emulator_port,
        agent_ports=agent_ports,
    )
    machines.start()
    if machines.orphans_stopped:
        LOG.warning(
            "Stopped the emulated machines' processes that an "
            'earlier stacklite-aio left running: %s',
            ', '.join(machines.orphans_stopped),
        )
    LOG.info(
        'Emulated %d machine(s): Redfish at %s, agents logging in %s',
        count,
        machines.address,
        machines.workdir,
    )
    return machines


def enroll(
    baremetal: Any, machines: emulated_machines.EmulatedMachines
) -> list[str]:
    """Create the nodes and ports that do not exist yet, point those
    that do at the emulator's address; their names."""
    existing = {n.name: n for n in baremetal.nodes(details=True)}
    names = []
    for index, system in enumerate(machines.systems):
        name = system['name']
        names.append(name)
        if name in existing:
            _readdress(baremetal, existing[name], machines.address)
            continue
        node = baremetal.create_node(
            name=name,
            driver='redfish',
            deploy_interface='agent',
            driver_info=machines.driver_info(index),
            properties=baremetal_pool.NODE_PROPERTIES,
        )
        baremetal.create_port(node_uuid=node.id, address=machines.mac(index))
        LOG.info('Emulated machine %s enrolled as node %s', name, node.id)
    return names


def _readdress(baremetal: Any, node: Any, address: str) -> None:
    """The emulator moved (its port was taken while the all-in-one was
    down): the node follows it."""
    old = (node.driver_info or {}).get('redfish_address')
    if old == address:
        return
    baremetal.patch_node(
        node,
        [
            {
                'op': 'add',
                'path': '/driver_info/redfish_address',
                'value': address,
            }
        ],
    )
    LOG.warning(
        'Emulated machine %(name)s: the emulator listens on '
        '%(new)s now; node %(node)s updated (was %(old)s)',
        {'name': node.name, 'new': address, 'node': node.id, 'old': old},
    )


def enroll_machines(
    connect: baremetal_pool.Connector,
    machines: emulated_machines.EmulatedMachines,
) -> list[str]:
    """Enroll the machines once the Bare Metal API answers (before the
    all-in-one says it is ready); their node names."""
    conn = connect('baremetal')
    baremetal_pool.wait_up(lambda: list(conn.baremetal.nodes(limit=1)))
    return enroll(conn.baremetal, machines)
