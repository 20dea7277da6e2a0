"""The all-in-one's identity: upstream Keystone (:mod:`stacklite.identity`,
the default) or, with ``--identity http_basic``, an htpasswd file.

Both APIs validate tokens with keystonemiddleware (nova-lite-api as the
service user ``nova``, ironic-lite-api as ``ironic``), and the client
files use password authentication against Keystone, so that clients
find their project and every endpoint in the catalog:

- ``clouds.yaml``: ``stacklite`` (admin, project ``admin``),
  ``stacklite-system`` (admin on the system scope: the Bare Metal API's
  administrators are system-scoped) and ``stacklite-demo`` (demo,
  project ``demo``);
- ``openrc`` (and ``novarc``, the same): the admin's project-scoped
  credentials for python-novaclient and other ``OS_*`` readers.
"""

import argparse
from collections.abc import Callable
from pathlib import Path
from typing import Any

import openstack
from oslo_config import cfg
import yaml

from lite_common import private
from stacklite import identity

CHOICES = ('http_basic', 'keystone')
LOG_OPTIONS = ('log_rotation_type', 'max_logfile_size_mb', 'max_logfile_count')


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        '--identity',
        choices=CHOICES,
        default=None,
        help='How clients authenticate: keystone (the default: upstream '
        'Keystone on --identity-port, tokens, projects and a service '
        'catalog) or http_basic (user names and passwords in an '
        'htpasswd file; clients get no project and no catalog).',
    )
    parser.add_argument(
        '--identity-port',
        type=int,
        default=identity.DEFAULT_PORT,
        help=f'Port of Keystone (default {identity.DEFAULT_PORT}).',
    )


def check_arguments(
    parser: argparse.ArgumentParser, args: argparse.Namespace
) -> None:
    """``args.identity`` becomes ``noauth`` with ``--noauth``, and
    ``keystone`` when not given."""
    if args.noauth:
        if args.identity is not None:
            parser.error(
                f'--noauth and --identity {args.identity} exclude each other'
            )
        args.identity = 'noauth'
    elif args.identity is None:
        args.identity = 'keystone'


def configure(
    conf: cfg.ConfigOpts,
    bm_conf: cfg.ConfigOpts | None,
    args: argparse.Namespace,
    state: Path,
    api_url: str,
    baremetal_url: str | None,
    net_conf: cfg.ConfigOpts | None = None,
    network_url: str | None = None,
) -> identity.Keystone:
    """Keystone, spawned (it sets itself up while the all-in-one
    builds its services; the Launcher's start waits for it), and every
    API set to validate its tokens."""
    keystone = identity.Keystone(
        state,
        args.api_host,
        args.identity_port,
        identity.catalog(api_url, baremetal_url, network_url),
        # keystone.log rotates as the all-in-one's own log.
        {name: conf[name] for name in LOG_OPTIONS},
    )
    identity.configure_authtoken(conf, keystone, 'nova')
    # The compute agents upload snapshots as the service user nova.
    _password_auth(conf, 'glance', keystone, 'nova')
    if bm_conf is not None:
        identity.configure_authtoken(bm_conf, keystone, 'ironic')
        # The Compute service's user (the ironic virt driver) has the
        # service role of the service project: what upstream Ironic
        # lets act on every node with this option.
        bm_conf.set_override('rbac_service_role_elevated_access', True)
        configure_image_service(bm_conf, keystone)
    if net_conf is not None:
        identity.configure_authtoken(net_conf, keystone, 'neutron')
    if args.baremetal_nodes or args.baremetal_emulate:
        configure_ironic_driver(conf, keystone)
    keystone.spawn()
    return keystone


def configure_image_service(
    bm_conf: cfg.ConfigOpts, keystone: identity.Keystone
) -> None:
    """The conductor's ``[glance]``: the service user ``ironic``, the
    image endpoint from Keystone's catalog."""
    _password_auth(bm_conf, 'glance', keystone, 'ironic')


def _password_auth(
    conf: cfg.ConfigOpts, group: str, keystone: identity.Keystone, user: str
) -> None:
    values = {
        'auth_type': 'password',
        'auth_url': keystone.auth_url,
        'username': user,
        'password': keystone.passwords[user],
        'project_name': identity.SERVICE_PROJECT,
        'user_domain_name': identity.DOMAIN,
        'project_domain_name': identity.DOMAIN,
        'region_name': identity.REGION,
        'endpoint_override': None,
    }
    for name, value in values.items():
        conf.set_override(name, value, group=group)


def configure_ironic_driver(
    conf: cfg.ConfigOpts, keystone: identity.Keystone
) -> None:
    """The ironic-compute agent's ``[ironic]``: the service user
    ``nova``, the Bare Metal endpoint from Keystone's catalog."""
    _password_auth(conf, 'ironic', keystone, 'nova')


def connector(clouds_yaml: Path) -> Callable[[str], Any]:
    """What enrolls the all-in-one's nodes: ``stacklite-system`` for
    the Bare Metal API (its administrators are system-scoped),
    ``stacklite`` for the Compute API (the flavor)."""
    config = openstack.config.OpenStackConfig(
        config_files=[str(clouds_yaml)], load_envvars=False
    )

    def connect(service: str) -> Any:
        cloud = 'stacklite-system' if service == 'baremetal' else 'stacklite'
        return openstack.connection.Connection(
            config=config.get_one(cloud=cloud)
        )

    return connect


def _auth(
    keystone: identity.Keystone, user: str, scope: dict[str, str]
) -> dict[str, Any]:
    return {
        'auth_url': keystone.auth_url,
        'username': user,
        'password': keystone.passwords[user],
        'user_domain_name': identity.DOMAIN,
        **scope,
    }


def _project(name: str) -> dict[str, str]:
    return {'project_name': name, 'project_domain_name': identity.DOMAIN}


def clouds(keystone: identity.Keystone) -> dict[str, Any]:
    entries = {
        'stacklite': _auth(keystone, 'admin', _project('admin')),
        'stacklite-system': _auth(keystone, 'admin', {'system_scope': 'all'}),
        'stacklite-demo': _auth(keystone, 'demo', _project('demo')),
    }
    return {
        'clouds': {
            name: {
                'auth_type': 'password',
                'auth': auth,
                'region_name': identity.REGION,
                'interface': 'public',
                'identity_api_version': '3',
            }
            for name, auth in entries.items()
        }
    }


def openrc(keystone: identity.Keystone) -> str:
    values = {
        'OS_AUTH_TYPE': 'password',
        'OS_AUTH_URL': keystone.auth_url,
        'OS_USERNAME': 'admin',
        'OS_PASSWORD': keystone.passwords['admin'],
        'OS_USER_DOMAIN_NAME': identity.DOMAIN,
        'OS_PROJECT_NAME': 'admin',
        'OS_PROJECT_DOMAIN_NAME': identity.DOMAIN,
        'OS_REGION_NAME': identity.REGION,
        'OS_IDENTITY_API_VERSION': '3',
        'OS_COMPUTE_API_VERSION': '2.latest',
    }
    return ''.join(f'export {key}={value}\n' for key, value in values.items())


def write_client_files(state: Path, keystone: identity.Keystone) -> Path:
    """clouds.yaml, openrc and novarc (0600); the clouds.yaml path."""
    path = state / 'clouds.yaml'
    private.write_file(path, yaml.safe_dump(clouds(keystone), sort_keys=False))
    for name in ('openrc', 'novarc'):
        private.write_file(state / name, openrc(keystone))
    return path
