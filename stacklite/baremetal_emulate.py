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
"""

from pathlib import Path
import threading
from typing import Any

from oslo_config import cfg
from oslo_log import log as logging

from stacklite import baremetal_pool
from stacklite import emulated_machines

LOG = logging.getLogger(__name__)
#: Seconds between two heartbeats of the agents: the conductor learns
#: that a step ended at the next heartbeat.
HEARTBEAT_INTERVAL = 2.0
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


def start(state: Path, count: int, bm_url: str
          ) -> emulated_machines.EmulatedMachines:
    """The emulator and the agents (stopped again if any fails)."""
    machines = emulated_machines.EmulatedMachines(
        state / 'emulated', count, bm_url,
        heartbeat_interval=HEARTBEAT_INTERVAL)
    machines.start()
    LOG.info('Emulated %d machine(s): Redfish at %s, agents logging in %s',
             count, machines.address, machines.workdir)
    return machines


def enroll(baremetal: Any, machines: emulated_machines.EmulatedMachines
           ) -> list[str]:
    """Create the nodes and ports that do not exist yet; their names."""
    existing = {n.name for n in baremetal.nodes()}
    names = []
    for index, system in enumerate(machines.systems):
        name = system['name']
        names.append(name)
        if name in existing:
            continue
        node = baremetal.create_node(
            name=name, driver='redfish', deploy_interface='agent',
            driver_info=machines.driver_info(index),
            properties=baremetal_pool.NODE_PROPERTIES)
        baremetal.create_port(node_uuid=node.id,
                              address=machines.mac(index))
        LOG.info('Emulated machine %s enrolled as node %s', name, node.id)
    return names


def start_enrolling(bm_url: str, users: dict[str, str] | None,
                    machines: emulated_machines.EmulatedMachines
                    ) -> threading.Thread:
    def run() -> None:
        try:
            conn = baremetal_pool.connection(
                bm_url, users, baremetal_endpoint_override=bm_url)
            baremetal_pool.wait_up(lambda: list(conn.baremetal.nodes(
                limit=1)))
            enroll(conn.baremetal, machines)
        except Exception:
            LOG.exception('Could not enroll the emulated machines')
    thread = threading.Thread(target=run, name='baremetal-emulate',
                              daemon=True)
    thread.start()
    return thread
