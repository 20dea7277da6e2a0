"""Devstack-style deployment: api, conductor and two computes as separate
processes on MariaDB and RabbitMQ, driven by the openstack CLI and
openstacksdk (see scenario.py)."""

import devstack_support as support
import pytest

from nova_lite.tests.integration import scenario

pytestmark = pytest.mark.integration


def test_scenario(deployment):
    scenario.run_scenario(deployment)


def test_openstacksdk(deployment, monkeypatch):
    scenario.run_sdk_checks(deployment, monkeypatch)


def test_no_credentials_is_401(deployment):
    status, _ = support.http_request(deployment.api_url + '/v2.1/servers')
    assert status == 401


def test_wrong_password_is_401(deployment):
    status, _ = support.http_request(
        deployment.api_url + '/v2.1/servers', 'admin', 'not-the-password'
    )
    assert status == 401


def test_demo_cannot_list_services(deployment):
    status, body = deployment.api_get('/v2.1/os-services', user='demo')
    assert status == 403, body
    assert set(body) == {'forbidden'}, body
    assert body['forbidden']['code'] == 403, body
    assert isinstance(body['forbidden']['message'], str), body
    proc = deployment.openstack(
        'compute', 'service', 'list', cloud='stacklite-demo', check=False
    )
    assert getattr(proc, 'returncode', 0) != 0, proc
    assert '403' in proc.stderr or 'Forbidden' in proc.stderr, proc.stderr


def test_demo_can_list_servers(deployment):
    assert deployment.openstack('server', 'list', cloud='stacklite-demo') == []


def test_compute_goes_down_and_comes_back(deployment):
    host = sorted(deployment.computes)[-1]
    assert deployment.stop_compute(host) == 0
    try:
        support.wait_for(
            lambda: (
                scenario.compute_services(deployment)[host]['State'] == 'down'
            ),
            60,
            f'{host} reported down',
            interval=2,
        )
    finally:
        deployment.start_compute(host, wait=False)
    support.wait_for(
        lambda: scenario.compute_services(deployment)[host]['State'] == 'up',
        60,
        f'{host} reported up again',
        interval=2,
    )
