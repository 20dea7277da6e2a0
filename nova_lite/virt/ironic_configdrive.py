"""The config drive of a bare metal server, as the documents the Bare
Metal API builds the drive from (``configdrive`` as a JSON object, API
1.56): ``meta_data`` (upstream's openstack/latest/meta_data.json),
``user_data`` and ``network_data``.

Not built here (upstream's driver writes an ISO 9660 image itself):
the Bare Metal service does. So user data must be text (UTF-8): binary
user data (a gzipped cloud-config) cannot travel in a JSON document and
the spawn fails, saying so. ``network_data`` is empty (no links or
networks: nova_lite has no networking service to describe them).
"""

import base64
import binascii
import os
from typing import Any

from oslo_config import cfg
from oslo_utils import strutils

from nova_lite import exception
from nova_lite.common import hostnames


def required(conf: cfg.ConfigOpts, instance: Any) -> bool:
    """The server asked for a config drive, or every server gets one
    (``[DEFAULT]force_config_drive``)."""
    return bool(
        conf.force_config_drive
        or strutils.bool_from_string(instance.config_drive or '')
    )


def meta_data(instance: Any) -> dict[str, Any]:
    """openstack/latest/meta_data.json of ``instance``."""
    keys = {}
    if instance.key_name and instance.key_data:
        keys = {instance.key_name: instance.key_data}
    return {
        'uuid': instance.uuid,
        'name': instance.display_name or '',
        # The stored host name (API 2.90); a server from before it was
        # stored gets the one derived from its name, as at create.
        'hostname': (
            instance.hostname
            or hostnames.for_server(instance.display_name, instance.uuid)
        ),
        'launch_index': int(
            (instance.system_metadata or {}).get('launch_index', 0)
        ),
        'availability_zone': instance.availability_zone,
        'project_id': instance.project_id,
        'meta': dict(instance.metadata or {}),
        'public_keys': keys,
        'keys': [
            {'name': name, 'type': 'ssh', 'data': data}
            for name, data in keys.items()
        ],
        'devices': [],
        'dedicated_cpus': [],
        'random_seed': base64.b64encode(os.urandom(512)).decode(),
    }


def user_data(instance: Any) -> str | None:
    """The server's user data as text; VirtDriverError when it is not
    UTF-8 (see the module's note)."""
    if not instance.user_data:
        return None
    try:
        return base64.b64decode(instance.user_data).decode('utf-8')
    except (binascii.Error, UnicodeDecodeError):
        raise exception.VirtDriverError(
            reason='the user data is not UTF-8 text: the Bare Metal '
            'service builds the config drive from JSON documents, which '
            'cannot hold binary user data'
        ) from None


def documents(instance: Any) -> dict[str, Any]:
    """The ``configdrive`` of the deploy request."""
    drive: dict[str, Any] = {
        'meta_data': meta_data(instance),
        'network_data': {'links': [], 'networks': [], 'services': []},
    }
    text = user_data(instance)
    if text is not None:
        drive['user_data'] = text
    return drive
