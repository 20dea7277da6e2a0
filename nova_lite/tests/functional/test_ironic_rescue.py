"""The ironic virt driver's rescue against a real ironic-lite-api
served over HTTP (in-process conductor, SQLite): a deployed node is
rescued with the password (``rescue``, the password masked) and
unrescued (``active``); a node whose rescue interface is ``no-rescue``
refuses with RescueNotSupported and stays ``active``."""

from collections.abc import Iterator
import types
from typing import Any
import uuid

from oslo_config import cfg
import pytest

from ironic_lite.tests.functional import fixtures as ironic_fixtures
from lite_common.tests import hostile
from lite_common.wsgi import server
from nova_lite import conf as nova_conf
from nova_lite import exception
from nova_lite.common import power_state
from nova_lite.virt import ironic


@pytest.fixture(scope='module')
def driver() -> Iterator[ironic.IronicDriver]:
    stack = ironic_fixtures.Stack().start()
    try:
        with hostile.serving(stack.app, server.Settings(threads=4)) as port:
            conf = cfg.ConfigOpts()
            nova_conf.register_all(conf)
            conf(
                [],
                project='nova-lite',
                default_config_files=[],
                default_config_dirs=[],
            )
            conf.set_override(
                'endpoint_override', f'http://127.0.0.1:{port}', group='ironic'
            )
            conf.set_override('auth_type', 'none', group='ironic')
            conf.set_override('deploy_timeout', 60, group='ironic')
            yield ironic.IronicDriver(conf, 'ironic-compute', '/nonexistent')
    finally:
        stack.stop()


def _available_node(driver: ironic.IronicDriver, **fields: Any) -> Any:
    bm = driver.conn.baremetal
    node = bm.create_node(driver='fake-hardware', **fields)
    for verb in ('manage', 'provide'):
        bm.set_node_provision_state(node, verb, wait=True, timeout=60)
    node = bm.get_node(node.id)
    assert node.provision_state == 'available'
    return node


def _deployed(driver: ironic.IronicDriver, **fields: Any) -> Any:
    node = _available_node(driver, **fields)
    instance = types.SimpleNamespace(
        uuid=str(uuid.uuid4()),
        node=node.id,
        image_ref='img',
        root_gb=1,
        display_name='bm',
        hostname='bm',
        config_drive='',
        flavor={},
        system_metadata={},
    )
    driver.spawn(instance)
    return instance


def test_rescue_and_unrescue_a_node(driver):
    instance = _deployed(driver)
    driver.rescue(instance, 'ignored-image', 's3cret')
    node = driver._node_of(instance)
    assert node.provision_state == 'rescue'
    assert node.instance_info['rescue_password'] == '******'
    assert driver.power_state(instance) == power_state.RUNNING
    driver.unrescue(instance)
    node = driver._node_of(instance)
    assert node.provision_state == 'active'
    assert 'rescue_password' not in node.instance_info
    # Unrescue of an active node changes nothing.
    driver.unrescue(instance)
    assert driver._node_of(instance).provision_state == 'active'
    driver.destroy(instance)


def test_a_node_without_rescue_refuses_and_stays_active(driver):
    instance = _deployed(driver, rescue_interface='no-rescue')
    with pytest.raises(exception.RescueNotSupported) as caught:
        driver.rescue(instance, 'img', 's3cret')
    assert 'cannot be rescued' in str(caught.value)
    assert driver._node_of(instance).provision_state == 'active'
    driver.destroy(instance)
