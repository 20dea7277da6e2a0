"""What a bare metal server gets beyond a deployed node, in one short
all-in-one run (``--baremetal-nodes 1`` plus one node enrolled here on
a ``flat`` network, with a port and the trait ``CUSTOM_GOLD``):

* a flavor requiring ``CUSTOM_GOLD`` lands on the gold node, and on no
  other ("No valid host" once it is taken); one forbidding it never
  lands there; the node's ``instance_info.traits`` names it;
* the server's port becomes a VIF of the node while it lives, and is
  detached when it is deleted;
* its config drive (asked for) reaches the Bare Metal service as the
  documents it builds the drive from, and the conductor builds the ISO
  (read back here with pycdlib): meta_data with the server's uuid, key
  and metadata, and the user data as text; again on a rebuild;
* the node's cleaning after the delete fails: the server's delete
  action (read for the deleted server at 2.58) ends in Error with an
  event whose traceback holds the node's last error.
"""

import base64
import gzip
import io
import json
import sqlite3
import uuid

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ed25519
import devstack_support as support
import openstack
import pycdlib
import pytest

from nova_lite.tests.integration import allinone
from nova_lite.tests.integration import conftest

pytestmark = pytest.mark.integration
TIMEOUT = 120
SPECS = {
    'resources:CUSTOM_BAREMETAL': '1',
    'resources:VCPU': '0',
    'resources:MEMORY_MB': '0',
    'resources:DISK_GB': '0',
}
USER_DATA = '#cloud-config\nhostname: gold\n'
EVENT = 'compute_clean_baremetal_node'


@pytest.fixture(scope='module')
def aio(request, tmp_path_factory):
    base = tmp_path_factory.mktemp('aio-bm-data')
    extra = base / 'flat.conf'
    extra.write_text('[DEFAULT]\nenabled_network_interfaces = noop,flat\n')
    cloud = allinone.AllInOne(
        base / 'state',
        base / 'aio.out',
        computes=0,
        extra_args=('--baremetal-nodes', '1', '--config-file', str(extra)),
    )
    conftest.register_cloud(request, cloud)
    cloud.start()
    try:
        yield cloud
    finally:
        cloud.stop(timeout=60)


def _sdk(aio):
    config = openstack.config.OpenStackConfig(
        config_files=[str(aio.clouds_yaml)]
    )
    return openstack.connection.Connection(
        config=config.get_one(aio.cloud_name)
    )


PROPERTIES = {'cpus': 4, 'memory_mb': 4096, 'local_gb': 20}


def _gold_node(conn) -> tuple[str, str]:
    """Enroll the gold node (flat network, a port, CUSTOM_GOLD) and make
    it available; (node uuid, a VIF id to attach)."""
    node = conn.baremetal.create_node(
        driver='fake-hardware',
        name='gold',
        resource_class='baremetal',
        network_interface='flat',
        properties=PROPERTIES,
        driver_info={'cleaning_network': 'provisioning'},
    )
    conn.baremetal.create_port(address='52:54:00:12:34:56', node_id=node.id)
    conn.baremetal.add_node_trait(node, 'CUSTOM_GOLD')
    for verb in ('manage', 'provide'):
        conn.baremetal.set_node_provision_state(
            node, verb, wait=True, timeout=60
        )
    return node.id, str(uuid.uuid4())


def _flavor(conn, name: str, trait: str) -> None:
    flavor = conn.compute.create_flavor(name=name, vcpus=1, ram=1, disk=0)
    conn.compute.create_flavor_extra_specs(
        flavor, {**SPECS, 'trait:CUSTOM_GOLD': trait}
    )


def _boot(conn, name: str, flavor: str, image: str, **kwargs) -> dict:
    """Boot until it is ACTIVE: nodes and traits are reported every 5 s
    (a server ending "No valid host" before is deleted, and tried
    again)."""
    flavor_id = conn.compute.find_flavor(flavor).id

    def booted():
        server = conn.compute.create_server(
            name=name, flavor_id=flavor_id, image_id=image, **kwargs
        )
        server = conn.compute.wait_for_server(
            server, status='ACTIVE', failures=['ERROR'], wait=TIMEOUT
        )
        return server

    def attempt():
        try:
            return booted()
        except openstack.exceptions.ResourceFailure:
            for server in conn.compute.servers(name=name):
                conn.compute.delete_server(server)
                conn.compute.wait_for_delete(server, wait=TIMEOUT)
            return None

    return support.wait_for(attempt, TIMEOUT, f'{name} ACTIVE', interval=2)


def _ironic_node_row(aio, node: str) -> dict:
    with sqlite3.connect(aio.state_dir / 'ironic.sqlite') as db:
        (info,) = db.execute(
            'SELECT instance_info FROM nodes WHERE uuid = ?', (node,)
        ).fetchone()
    return json.loads(info or '{}')


def _drive(info: dict) -> dict:
    """The documents of the node's config drive: a gzipped, base64 ISO
    9660 image labelled config-2."""
    image = gzip.decompress(base64.b64decode(info['configdrive']))
    assert image[32768 + 40 : 32768 + 48] == b'config-2'
    reader = pycdlib.PyCdlib()
    reader.open_fp(io.BytesIO(image))
    found = {}
    for name in ('meta_data.json', 'user_data'):
        out = io.BytesIO()
        reader.get_file_from_iso_fp(out, rr_path=f'/openstack/latest/{name}')
        found[name] = out.getvalue()
    reader.close()
    return {
        'meta_data': json.loads(found['meta_data.json']),
        'user_data': found['user_data'].decode(),
    }


def _public_key() -> str:
    key = ed25519.Ed25519PrivateKey.generate().public_key()
    return key.public_bytes(
        serialization.Encoding.OpenSSH, serialization.PublicFormat.OpenSSH
    ).decode()


def _vifs(conn, node: str) -> list[str]:
    return list(conn.baremetal.list_node_vifs(node))


def test_traits_vifs_config_drive_and_a_failed_cleaning(aio):
    conn = _sdk(aio)
    gold, port = _gold_node(conn)
    image = aio.openstack(
        'image',
        'create',
        '--disk-format',
        'raw',
        '--container-format',
        'bare',
        'bm-image',
    )['id']
    _flavor(conn, 'bm-gold', 'required')
    _flavor(conn, 'bm-plain', 'forbidden')
    key = _public_key()
    conn.compute.create_keypair(name='mine', public_key=key)

    server = _boot(
        conn,
        'gold-1',
        'bm-gold',
        image,
        networks=[{'port': port}],
        config_drive=True,
        key_name='mine',
        metadata={'role': 'db'},
        user_data=base64.b64encode(USER_DATA.encode()).decode(),
    )
    assert server.hypervisor_hostname == gold, server
    info = _ironic_node_row(aio, gold)
    assert info['traits'] == ['CUSTOM_GOLD']
    drive = _drive(info)
    assert drive['meta_data']['uuid'] == server.id
    assert drive['meta_data']['public_keys'] == {'mine': key}
    assert drive['meta_data']['meta'] == {'role': 'db'}
    assert drive['user_data'] == USER_DATA
    assert _vifs(conn, gold) == [port]

    # A rebuild sends the config drive again (not the masked one read
    # back from the node).
    conn.compute.rebuild_server(server, image=image)
    support.wait_for(
        lambda: (
            conn.compute.get_server(server.id).status == 'ACTIVE'
            and conn.compute.get_server(server.id).task_state is None
        ),
        TIMEOUT,
        'rebuilt',
        interval=1,
    )
    drive = _drive(_ironic_node_row(aio, gold))
    assert drive['meta_data']['uuid'] == server.id, drive
    assert drive['user_data'] == USER_DATA

    # The gold node is taken: another gold server finds no node.
    second = conn.compute.create_server(
        name='gold-2',
        flavor_id=conn.compute.find_flavor('bm-gold').id,
        image_id=image,
        networks='none',
    )
    failed = support.wait_for(
        lambda: (
            (s := conn.compute.get_server(second.id)).status == 'ERROR' and s
        ),
        TIMEOUT,
        'gold-2 ERROR',
        interval=1,
    )
    assert 'with traits CUSTOM_GOLD' in failed.fault['message'], failed
    conn.compute.delete_server(second)
    plain = _boot(conn, 'plain-1', 'bm-plain', image, networks='none')
    assert plain.hypervisor_hostname != gold

    # A property the fake hardware's verify step refuses: its cleaning
    # after the delete fails.
    conn.baremetal.update_node(gold, properties={**PROPERTIES, 'memory_mb': 0})
    conn.compute.delete_server(server)
    conn.compute.wait_for_delete(server, wait=TIMEOUT)
    support.wait_for(
        lambda: (
            conn.baremetal.get_node(gold).provision_state == 'clean failed'
        ),
        TIMEOUT,
        'clean failed',
        interval=1,
    )
    assert _vifs(conn, gold) == []

    def cleaning_event():
        actions = conn.compute.get(
            f'/servers/{server.id}/os-instance-actions', microversion='2.58'
        ).json()['instanceActions']
        [delete] = [a for a in actions if a['action'] == 'delete']
        detail = conn.compute.get(
            f'/servers/{server.id}/os-instance-actions/{delete["request_id"]}',
            microversion='2.58',
        ).json()
        events = {e['event']: e for e in detail['instanceAction']['events']}
        event = events.get(EVENT)
        return event and event['finish_time'] and (detail, event)

    detail, event = support.wait_for(
        cleaning_event, TIMEOUT, 'the cleaning event', interval=1
    )
    assert event['result'] == 'Error', event
    assert 'memory_mb must be a positive integer' in event['traceback']
    assert detail['instanceAction']['message'] == 'Error'
