"""How the ironic virt driver reaches the Bare Metal API: ``[ironic]``
with http_basic, none, or a Keystone service user (``password``)."""

import pytest

from nova_lite import exception
from nova_lite.virt import ironic

BM_URL = 'http://127.0.0.1:6385'


def _ironic(conf, **values):
    for name, value in values.items():
        conf.set_override(name, value, group='ironic')
    return conf.ironic


def test_password_auth_needs_the_keystone_url(conf):
    opts = _ironic(conf, auth_type='password', username='nova',
                   password='secret')
    with pytest.raises(exception.ConfigError, match='auth_url'):
        ironic.bare_metal_connection(opts)


def test_password_auth_takes_the_endpoint_override_when_set(conf):
    opts = _ironic(conf, auth_type='password', username='nova',
                   password='secret', auth_url='http://127.0.0.1:5000/v3',
                   endpoint_override=BM_URL)
    conn = ironic.bare_metal_connection(opts)
    assert conn.config.get_endpoint('baremetal') == BM_URL
    assert conn.session.auth.auth_url == 'http://127.0.0.1:5000/v3'


def test_password_auth_without_override_reads_the_catalog(conf):
    opts = _ironic(conf, auth_type='password', username='nova',
                   password='secret', auth_url='http://127.0.0.1:5000/v3',
                   region_name='RegionOne')
    conn = ironic.bare_metal_connection(opts)
    assert conn.config.get_endpoint('baremetal') is None
    assert conn.config.get_interface('baremetal') == ['internal', 'public']
    assert conn.config.get_region_name('baremetal') == 'RegionOne'


@pytest.mark.parametrize('auth_type', ['http_basic', 'none'])
def test_other_auth_types_need_the_endpoint_override(conf, auth_type):
    opts = _ironic(conf, auth_type=auth_type)
    with pytest.raises(exception.ConfigError, match='endpoint_override'):
        ironic.bare_metal_connection(opts)
