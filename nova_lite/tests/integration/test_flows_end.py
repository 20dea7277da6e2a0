"""Every flow ends: the two liveness defects of issue 29, replayed with the
exact signals on real processes (three computes, local driver, RabbitMQ
+ MariaDB; the conductor drives stalled moves again every 5 s after 20 s,
the agents' housekeeping runs every 5 s, as in the issue's runs).

1. A rebuild whose request an agent took and lost: the agent dies before
   its first conductor call (the conductor was frozen). Its restart
   finishes the rebuild: the server is ACTIVE with the new image's disk,
   not REBUILD for ever. A stop lost the same way ends SHUTOFF; a reboot
   whose handler died on a conductor that did not answer in time (the
   agent lives on) is taken up by the agent's housekeeping.
2. A state reset while a migration is still open, then a resize: the
   reset ends the stranded migration (``error``) and the resize is the
   one that completes, with no migration of the server left open (its
   record used to stay ``pre-migrating`` for ever while the first
   migration completed under the resize's task state).

The tests run in order on one deployment.
"""

import json
import secrets
import time
from typing import Any

import devstack_support as support
import pytest
import sqlalchemy as sa

from nova_lite.tests.integration import scenario

pytestmark = pytest.mark.integration

C1, C2, C3 = 'compute-1', 'compute-2', 'compute-3'
TIMEOUT = 120
# How long a finished flow may take to show once everything runs: the
# agent's start-up, or a housekeeping pass plus a move's steps.
SETTLE = 90
OPEN = (
    'accepted',
    'pre-migrating',
    'migrating',
    'post-migrating',
    'reverting',
)


@pytest.fixture(scope='module')
def cloud(request, tmp_path_factory):
    import devstack

    from lite_common.tests import integration

    dep = devstack.start(
        tmp_path_factory.mktemp('flows-end'),
        db='mysql',
        computes=3,
        driver='local',
        # An object call a frozen conductor does not answer fails after
        # 10 s (the default is 60), so that a request's handler dies
        # quickly in the last test of the rebuild kind.
        compute_options={
            'DEFAULT': {'cleanup_interval': 5, 'rpc_response_timeout': 10}
        },
        controller_options={
            'conductor': {
                'move_recovery_interval': 5,
                'move_stall_timeout': 20,
            }
        },
    )
    integration.register_cloud(request, dep)
    try:
        yield dep
    finally:
        dep.stop()


@pytest.fixture(scope='module')
def setup(cloud) -> dict[str, Any]:
    suffix = secrets.token_hex(3)
    small = scenario.create_flavor(cloud, f'fe-small-{suffix}')
    large = cloud.openstack(
        'flavor',
        'create',
        '--vcpus',
        '2',
        '--ram',
        '512',
        '--disk',
        '1',
        f'fe-large-{suffix}',
    )['id']
    image = scenario.create_image(cloud, f'fe-{suffix}')
    other = scenario.create_image(cloud, f'fe-other-{suffix}')
    return {
        'small': small,
        'large': large,
        'image': image,
        'other': other,
        'suffix': suffix,
    }


def _rows(cloud, query: str, **params: Any) -> list[Any]:
    engine = sa.create_engine(cloud.db_url)
    try:
        with engine.connect() as connection:
            return list(connection.execute(sa.text(query), params))
    finally:
        engine.dispose()


def _instance(cloud, uuid: str) -> Any:
    return _rows(
        cloud,
        'SELECT host, vm_state, task_state, vcpus, '
        'image_ref FROM instances WHERE uuid = :uuid',
        uuid=uuid,
    )[0]


def _migrations(cloud, uuid: str) -> list[Any]:
    return _rows(
        cloud,
        'SELECT id, migration_type, status, dest_compute '
        'FROM migrations WHERE instance_uuid = :uuid AND '
        'deleted = 0 ORDER BY id',
        uuid=uuid,
    )


def _action(
    cloud, uuid: str, body: dict[str, Any], expected: int = 202
) -> None:
    status, answer = cloud.api_call(
        'POST', f'/v2.1/servers/{uuid}/action', body, '2.56'
    )
    assert status == expected, (status, answer)


def _boot(cloud, setup, name: str, host: str) -> str:
    """A server on ``host`` (the other computes disabled meanwhile)."""
    others = [h for h in (C1, C2, C3) if h != host]
    for other in others:
        scenario.set_compute_enabled(cloud, other, enabled=False)
    try:
        server = scenario.boot(
            cloud,
            setup['small'],
            setup['image'],
            f'fe-{setup["suffix"]}-{name}',
        )
    finally:
        for other in others:
            scenario.set_compute_enabled(cloud, other, enabled=True)
    assert _instance(cloud, server['id']).host == host
    return server['id']


def _disk_image(cloud, host: str, uuid: str) -> str | None:
    """The image the local driver wrote into the disk's header."""
    with open(cloud.disk_path(host, uuid), 'rb') as disk:
        head = disk.read(512).split(b'\0', 1)[0]
    return json.loads(head).get('image')


def _wait_at_rest(cloud, uuid: str) -> Any:
    """Until the server has no task and no open migration (bounded)."""

    def settled() -> Any:
        row = _instance(cloud, uuid)
        open_moves = [m for m in _migrations(cloud, uuid) if m.status in OPEN]
        return row.task_state is None and not open_moves and row

    try:
        return support.wait_for(settled, SETTLE, f'{uuid} at rest', interval=1)
    except TimeoutError:
        raise AssertionError(
            f'{uuid} did not come to rest: {_instance(cloud, uuid)}, '
            f'migrations {_migrations(cloud, uuid)}'
        ) from None


def test_rebuild_taken_and_lost_by_a_dying_agent_ends(cloud, setup):
    """Boot X; SIGSTOP its compute; rebuild (202); SIGSTOP the conductor;
    SIGCONT the compute, 3 s, SIGKILL it; SIGCONT the conductor and
    start the compute: the rebuild is finished."""
    uuid = _boot(cloud, setup, 'rebuild', C1)
    cloud.pause(C1)
    try:
        _action(cloud, uuid, {'rebuild': {'imageRef': setup['other']}})
        cloud.pause('conductor')
        cloud.resume(C1)
        time.sleep(3)
        cloud.kill(C1)
    finally:
        cloud.resume('conductor')
    assert _instance(cloud, uuid).task_state == 'rebuilding'
    cloud.start_compute(C1)
    row = _wait_at_rest(cloud, uuid)
    assert (row.host, row.vm_state, row.image_ref) == (
        C1,
        'active',
        setup['other'],
    ), row
    assert _disk_image(cloud, C1, uuid) == setup['other']


def test_stop_taken_and_lost_by_a_dying_agent_ends(cloud, setup):
    """The same signals around a stop: the server ends SHUTOFF."""
    uuid = _boot(cloud, setup, 'stop', C3)
    cloud.pause(C3)
    try:
        _action(cloud, uuid, {'os-stop': None})
        cloud.pause('conductor')
        cloud.resume(C3)
        time.sleep(3)
        cloud.kill(C3)
    finally:
        cloud.resume('conductor')
    assert _instance(cloud, uuid).task_state == 'powering-off'
    cloud.start_compute(C3)
    row = _wait_at_rest(cloud, uuid)
    assert (row.host, row.vm_state) == (C3, 'stopped'), row


def test_reboot_whose_handler_died_on_a_silent_conductor_ends(cloud, setup):
    """The conductor is frozen for longer than the agent waits for an
    answer: the reboot's handler dies (the agent lives on); once the
    conductor answers again, the agent's housekeeping takes the reboot
    up."""
    uuid = _boot(cloud, setup, 'reboot', C1)
    cloud.pause('conductor')
    try:
        _action(cloud, uuid, {'reboot': {'type': 'SOFT'}})
        # The handler's first object call times out (10 s).
        time.sleep(15)
    finally:
        cloud.resume('conductor')
    row = _wait_at_rest(cloud, uuid)
    assert (row.host, row.vm_state) == (C1, 'active'), row
    log = (cloud.logs / f'{C1}.log').read_text(errors='replace')
    assert 'the request was lost); taking it up' in log


def test_reset_ends_the_move_it_strands_and_the_next_move_completes(
    cloud, setup
):
    """A migration to C2 is accepted while C2 and the conductor are
    dead; os-resetState (active) ends it; a resize is then accepted and
    is the move that completes once everything runs again."""
    uuid = _boot(cloud, setup, 'reset', C1)
    cloud.kill(C2)
    cloud.kill('conductor')
    try:
        _action(cloud, uuid, {'migrate': {'host': C2}})
        [first] = _migrations(cloud, uuid)
        assert first.status == 'pre-migrating', first
        _action(cloud, uuid, {'os-resetState': {'state': 'active'}})
        [first] = _migrations(cloud, uuid)
        assert first.status == 'error', first
        _action(cloud, uuid, {'resize': {'flavorRef': setup['large']}})
    finally:
        cloud.start_conductor()
        cloud.start_compute(C2)
    row = _wait_at_rest(cloud, uuid)
    first, second = _migrations(cloud, uuid)
    assert (first.status, second.migration_type, second.status) == (
        'error',
        'resize',
        'finished',
    ), (first, second)
    assert (row.vm_state, row.vcpus) == ('resized', 2), row
    _action(cloud, uuid, {'confirmResize': None}, 204)
    support.wait_for(
        lambda: _migrations(cloud, uuid)[-1].status == 'confirmed',
        TIMEOUT,
        'the resize confirmed',
    )
    cloud.wait_services_up()
