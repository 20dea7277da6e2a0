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
    opts = _ironic(
        conf, auth_type='password', username='nova', password='secret'
    )
    with pytest.raises(exception.ConfigError, match='auth_url'):
        ironic.bare_metal_connection(opts)


def test_password_auth_takes_the_endpoint_override_when_set(conf):
    opts = _ironic(
        conf,
        auth_type='password',
        username='nova',
        password='secret',
        auth_url='http://127.0.0.1:5000/v3',
        endpoint_override=BM_URL,
    )
    conn = ironic.bare_metal_connection(opts)
    assert conn.config.get_endpoint('baremetal') == BM_URL
    assert conn.session.auth.auth_url == 'http://127.0.0.1:5000/v3'


def test_password_auth_without_override_reads_the_catalog(conf):
    opts = _ironic(
        conf,
        auth_type='password',
        username='nova',
        password='secret',
        auth_url='http://127.0.0.1:5000/v3',
        region_name='RegionOne',
    )
    conn = ironic.bare_metal_connection(opts)
    assert conn.config.get_endpoint('baremetal') is None
    assert conn.config.get_interface('baremetal') == ['internal', 'public']
    assert conn.config.get_region_name('baremetal') == 'RegionOne'


@pytest.mark.parametrize('auth_type', ['http_basic', 'none'])
def test_other_auth_types_need_the_endpoint_override(conf, auth_type):
    opts = _ironic(conf, auth_type=auth_type)
    with pytest.raises(exception.ConfigError, match='endpoint_override'):
        ironic.bare_metal_connection(opts)


def _https_server(tmp_path, client_ca=None):
    """A Bare Metal API stand-in on https://127.0.0.1 (a certificate of
    a CA of its own), answering every GET with an empty node list and
    recording the client certificate each request came with."""
    import http.server
    import json
    import ssl
    import subprocess
    import threading

    def openssl(*args):
        subprocess.run(['openssl', *args], check=True, capture_output=True)

    openssl(
        'req',
        '-x509',
        '-newkey',
        'rsa:2048',
        '-nodes',
        '-days',
        '1',
        '-subj',
        '/CN=test-ca',
        '-keyout',
        str(tmp_path / 'ca.key'),
        '-out',
        str(tmp_path / 'ca.pem'),
    )
    for name, cn in (('server', '127.0.0.1'), ('client', 'nova')):
        openssl(
            'req',
            '-newkey',
            'rsa:2048',
            '-nodes',
            '-subj',
            f'/CN={cn}',
            '-keyout',
            str(tmp_path / f'{name}.key'),
            '-out',
            str(tmp_path / f'{name}.csr'),
        )
        ext = tmp_path / f'{name}.ext'
        ext.write_text('subjectAltName=IP:127.0.0.1\n')
        openssl(
            'x509',
            '-req',
            '-in',
            str(tmp_path / f'{name}.csr'),
            '-CA',
            str(tmp_path / 'ca.pem'),
            '-CAkey',
            str(tmp_path / 'ca.key'),
            '-CAcreateserial',
            '-days',
            '1',
            '-extfile',
            str(ext),
            '-out',
            str(tmp_path / f'{name}.pem'),
        )
    seen = []

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self):
            seen.append(self.connection.getpeercert())
            body = json.dumps({'nodes': []}).encode()
            self.send_response(200)
            self.send_header('Content-Type', 'application/json')
            self.send_header('Content-Length', str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args):
            pass

    server = http.server.ThreadingHTTPServer(('127.0.0.1', 0), Handler)
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(tmp_path / 'server.pem', tmp_path / 'server.key')
    if client_ca:
        context.verify_mode = ssl.CERT_REQUIRED
        context.load_verify_locations(tmp_path / 'ca.pem')
    server.socket = context.wrap_socket(server.socket, server_side=True)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, f'https://127.0.0.1:{server.server_address[1]}', seen


def _list_nodes(opts):
    conn = ironic.bare_metal_connection(opts)
    return conn.session.get(
        f'{opts.endpoint_override}/v1/nodes',
        raise_exc=False,
        authenticated=False,
    )


def test_https_is_verified_with_the_cafile(conf, tmp_path):
    """[ironic]cafile verifies the API's certificate; without it the
    system's CAs refuse it; insecure skips the check."""
    from keystoneauth1 import exceptions as ks_exc

    server, url, _ = _https_server(tmp_path)
    try:
        opts = _ironic(
            conf, auth_type='none', endpoint_override=url, timeout=10
        )
        with pytest.raises(ks_exc.SSLError):
            _list_nodes(opts)
        opts = _ironic(conf, cafile=str(tmp_path / 'ca.pem'))
        assert _list_nodes(opts).json() == {'nodes': []}
        opts = _ironic(conf, cafile=None, insecure=True)
        assert _list_nodes(opts).status_code == 200
    finally:
        server.shutdown()


def test_a_client_certificate_is_presented(conf, tmp_path):
    server, url, seen = _https_server(tmp_path, client_ca=True)
    try:
        opts = _ironic(
            conf,
            auth_type='none',
            endpoint_override=url,
            cafile=str(tmp_path / 'ca.pem'),
            certfile=str(tmp_path / 'client.pem'),
            keyfile=str(tmp_path / 'client.key'),
            timeout=10,
        )
        assert _list_nodes(opts).status_code == 200
        subject = dict(field[0] for field in seen[-1]['subject'])
        assert subject['commonName'] == 'nova'
    finally:
        server.shutdown()


def test_a_keyfile_without_certfile_is_refused(conf):
    opts = _ironic(
        conf,
        auth_type='none',
        endpoint_override=BM_URL,
        keyfile='/etc/nova-lite/ironic.key',
    )
    with pytest.raises(exception.ConfigError, match='certfile'):
        ironic.bare_metal_connection(opts)
