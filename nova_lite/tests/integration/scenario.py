"""The end-to-end scenario shared by the devstack and all-in-one tests.

A *cloud* here is any object with:

- ``openstack(*args, parse=True, check=True)``: run the real ``openstack``
  CLI as the admin user (``-f json`` parsed when ``parse``);
- ``find_disk(host, server_id)``: the local driver's disk file of a server
  on ``host``, or None;
- ``clouds_yaml`` and ``cloud_name``: the clouds.yaml file and the admin
  cloud in it (for openstacksdk).

Expectations follow the wire formats of upstream Nova as rendered by
python-openstackclient.
"""

from pathlib import Path
import secrets
import tempfile
from typing import Any

import devstack_support as support

BOOT_TIMEOUT = 300
HOST_KEY = 'OS-EXT-SRV-ATTR:host'


def _wait(predicate: Any, what: str, timeout: float = 60) -> Any:
    return support.wait_for(predicate, timeout, what, interval=1)


# -- services and hypervisors ---


def compute_services(cloud: Any, long: bool = False) -> dict[str, dict]:
    """host -> row of ``openstack compute service list`` (nova-compute)."""
    args = ['compute', 'service', 'list'] + (['--long'] if long else [])
    rows = cloud.openstack(*args)
    return {
        row['Host']: row for row in rows if row['Binary'] == 'nova-compute'
    }


def wait_computes_up(cloud: Any, minimum: int = 2) -> list[str]:
    """Sorted hosts of the enabled, up compute services (at least N)."""

    def ready() -> list[str]:
        hosts = sorted(
            host
            for host, row in compute_services(cloud).items()
            if row['State'] == 'up' and row['Status'] == 'enabled'
        )
        return hosts if len(hosts) >= minimum else []

    return _wait(ready, f'{minimum} compute services up', timeout=120)


def check_service_list(cloud: Any, hosts: list[str]) -> None:
    rows = cloud.openstack('compute', 'service', 'list')
    binaries = {row['Binary'] for row in rows}
    assert 'nova-conductor' in binaries, rows
    assert {
        'ID',
        'Binary',
        'Host',
        'Zone',
        'Status',
        'State',
        'Updated At',
    } <= set(rows[0]), rows[0]
    conductors = [r for r in rows if r['Binary'] == 'nova-conductor']
    assert all(r['State'] == 'up' for r in conductors), conductors
    computes = compute_services(cloud)
    for host in hosts:
        assert computes[host]['Status'] == 'enabled', computes[host]
        assert computes[host]['State'] == 'up', computes[host]


def check_hypervisor_list(cloud: Any, hosts: list[str]) -> None:
    rows = cloud.openstack('hypervisor', 'list')
    by_name = {row['Hypervisor Hostname']: row for row in rows}
    assert set(hosts) <= set(by_name), rows
    for host in hosts:
        assert by_name[host]['State'] == 'up', by_name[host]


def set_compute_enabled(cloud: Any, host: str, enabled: bool) -> None:
    args = (
        ['--enable'] if enabled else ['--disable', '--disable-reason', 'maint']
    )
    cloud.openstack(
        'compute', 'service', 'set', *args, host, 'nova-compute', parse=False
    )


def check_disabled(cloud: Any, host: str) -> None:
    row = compute_services(cloud, long=True)[host]
    assert row['Status'] == 'disabled', row
    assert row['Disabled Reason'] == 'maint', row


# -- flavors, images, servers ----------------------------------------------


def create_flavor(cloud: Any, name: str) -> str:
    flavor = cloud.openstack(
        'flavor', 'create', '--vcpus', '1', '--ram', '256', '--disk', '1', name
    )
    assert flavor['name'] == name, flavor
    return flavor['id']


def create_image(cloud: Any, name: str = 'cirros') -> str:
    """An active image: its data uploaded (``--file``), as Nova boots
    no other."""
    with tempfile.TemporaryDirectory() as tmp:
        data = Path(tmp) / f'{name}.img'
        data.write_bytes(b'a few bytes of ' + name.encode())
        image = cloud.openstack(
            'image',
            'create',
            '--disk-format',
            'raw',
            '--container-format',
            'bare',
            '--property',
            'x=y',
            '--file',
            str(data),
            name,
        )
    assert image['name'] == name, image
    assert image['disk_format'] == 'raw', image
    shown = cloud.openstack('image', 'show', image['id'])
    assert shown['properties'].get('x') == 'y', shown
    assert shown['status'] == 'active', shown
    return image['id']


def boot(cloud: Any, flavor: str, image: str, name: str) -> dict:
    server = cloud.openstack(
        'server',
        'create',
        '--flavor',
        flavor,
        '--image',
        image,
        '--no-network',
        '--wait',
        name,
        timeout=BOOT_TIMEOUT,
    )
    assert server['status'] == 'ACTIVE', server
    return server


def placement(cloud: Any, server_ids: list[str]) -> dict[str, str]:
    """server id -> host, checking each is ACTIVE (admin sees the host)."""
    hosts = {}
    for server_id in server_ids:
        server = cloud.openstack('server', 'show', server_id)
        assert server['status'] == 'ACTIVE', server
        assert server.get(HOST_KEY), server
        hosts[server_id] = server[HOST_KEY]
    return hosts


def check_disks(cloud: Any, placed: dict[str, str]) -> None:
    for server_id, host in placed.items():
        disk = cloud.find_disk(host, server_id)
        assert disk is not None and disk.is_file(), (
            f'no disk file for {server_id} on {host}'
        )


def delete_servers(cloud: Any, placed: dict[str, str]) -> None:
    cloud.openstack(
        'server',
        'delete',
        '--wait',
        *placed,
        parse=False,
        timeout=BOOT_TIMEOUT,
    )
    listed = {row['ID'] for row in cloud.openstack('server', 'list')}
    assert not listed & set(placed), listed
    _wait(
        lambda: all(
            cloud.find_disk(host, sid) is None for sid, host in placed.items()
        ),
        'disk files of deleted servers to go',
    )


def _cleanup(cloud: Any, server_ids: list[str]) -> None:
    """Best effort: delete what a failed scenario left behind."""
    if server_ids:
        cloud.openstack(
            'server',
            'delete',
            '--wait',
            *server_ids,
            parse=False,
            check=False,
            timeout=BOOT_TIMEOUT,
        )


# -- the scenario ---


def run_scenario(cloud: Any) -> None:
    """Boot, spread, disable a host, boot again, delete: all via the CLI."""
    suffix = secrets.token_hex(3)
    hosts = wait_computes_up(cloud)
    check_service_list(cloud, hosts)
    check_hypervisor_list(cloud, hosts)
    flavor = create_flavor(cloud, f'it.small-{suffix}')
    image = create_image(cloud, 'cirros')
    booted: list[str] = []
    try:
        for index in range(4):
            booted.append(
                boot(cloud, flavor, image, f'it-{suffix}-{index}')['id']
            )
        placed = placement(cloud, booted)
        assert set(placed.values()) == set(hosts), placed
        check_disks(cloud, placed)
        placed.update(
            boot_on_one_host(cloud, flavor, image, hosts, suffix, booted)
        )
        check_disks(cloud, placed)
        delete_servers(cloud, placed)
        booted.clear()
    finally:
        _cleanup(cloud, booted)


def boot_on_one_host(
    cloud: Any,
    flavor: str,
    image: str,
    hosts: list[str],
    suffix: str,
    booted: list[str],
) -> dict[str, str]:
    """Disable the first host; two new servers land on the others."""
    disabled = hosts[0]
    set_compute_enabled(cloud, disabled, enabled=False)
    try:
        check_disabled(cloud, disabled)
        new = []
        for index in range(2):
            new.append(
                boot(cloud, flavor, image, f'it-{suffix}-late-{index}')['id']
            )
            booted.append(new[-1])
        placed = placement(cloud, new)
        assert disabled not in placed.values(), placed
        return placed
    finally:
        set_compute_enabled(cloud, disabled, enabled=True)


# -- openstacksdk ---


def run_sdk_checks(cloud: Any, monkeypatch: Any) -> None:
    """Flavors and servers through openstacksdk with the same clouds.yaml."""
    import openstack

    monkeypatch.setenv('OS_CLIENT_CONFIG_FILE', str(cloud.clouds_yaml))
    conn = openstack.connect(cloud=cloud.cloud_name)
    suffix = secrets.token_hex(3)
    flavor = conn.compute.create_flavor(
        name=f'sdk-{suffix}', ram=256, vcpus=1, disk=1
    )
    assert f'sdk-{suffix}' in {f.name for f in conn.compute.flavors()}
    image = create_image(cloud, f'sdk-cirros-{suffix}')
    server = conn.compute.create_server(
        name=f'sdk-{suffix}',
        flavor_id=flavor.id,
        image_id=image,
        networks='none',
    )
    try:
        server = conn.compute.wait_for_server(server, wait=BOOT_TIMEOUT)
        assert server.status == 'ACTIVE'
        listed = {s.id: s for s in conn.compute.servers(details=True)}
        assert server.id in listed
        assert listed[server.id].compute_host
    finally:
        conn.compute.delete_server(server, ignore_missing=True)
    conn.compute.wait_for_delete(server, wait=BOOT_TIMEOUT)
    assert server.id not in {s.id for s in conn.compute.servers()}
