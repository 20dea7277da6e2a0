"""The console log of a local guest through the API (real services in
process, local driver, SQLite, inproc bus): each boot and power change
the server went through, its last lines, and a 404 once the guest is
gone from its host."""

from nova_lite.tests.functional import test_move
from nova_lite.tests.functional.test_evacuation_safety import _boot_on
from nova_lite.tests.functional.test_move import _action
from nova_lite.tests.functional.test_move import _disk
from nova_lite.tests.functional.test_move import _wait_status

C1 = 'compute-1'
client = test_move.client


def _output(client, uuid: str, body) -> str:
    resp = _action(client, uuid, {'os-getConsoleOutput': body})
    assert resp.status_int == 200, resp.text
    return resp.json['output']


def test_the_log_shows_boots_and_power_changes(client):
    uuid = _boot_on(client, C1, 'chatty')['id']
    assert (
        _action(client, uuid, {'reboot': {'type': 'HARD'}}).status_int == 202
    )
    client.wait(lambda: 'boot 2' in _output(client, uuid, {}), 'rebooted')
    _wait_status(client, uuid, 'ACTIVE')
    assert _action(client, uuid, {'os-stop': None}).status_int == 202
    _wait_status(client, uuid, 'SHUTOFF')
    lines = [
        line.split('] ', 1)[1]
        for line in _output(client, uuid, {}).splitlines()
    ]
    assert lines == [
        f'Booting from image {client.image} (boot 1)',
        'chatty login:',
        'Booting from disk (boot 2)',
        'chatty login:',
        'Powered off',
    ]
    # The last two lines: the log ends with a newline, so one of them.
    assert _output(client, uuid, {'length': 2}).endswith('Powered off\n')
    assert _output(client, uuid, {'length': 2}).count('\n') == 1

    # The guest gone from its host (its record not): no console.
    disk = _disk(client, C1, uuid)
    hidden = disk.with_name('hidden')
    disk.rename(hidden)
    try:
        resp = _action(client, uuid, {'os-getConsoleOutput': {}})
        assert resp.status_int == 404, resp.text
        assert (
            'Guest does not have a console available.'
            in resp.json['itemNotFound']['message']
        )
    finally:
        hidden.rename(disk)
