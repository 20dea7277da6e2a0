"""Volume connectors and targets (``?fields=`` may leave out any field
but ``links``) and the ``/v1/volume`` link documents."""

from ironic_lite.api.schemas.responses import common as c

_S = c.STRING_OR_NULL
_COMMON = {
    'uuid': c.STRING,
    'node_uuid': _S,
    'extra': c.OBJECT,
    'created_at': c.TIME,
    'updated_at': c.TIME_OR_NULL,
    'links': c.LINKS,
}
CONNECTOR = c.resource(
    {'type': c.STRING, 'connector_id': c.STRING, **_COMMON},
    required=['links'],
    title='VolumeConnector',
)
CONNECTORS = c.page('connectors', CONNECTOR)
TARGET = c.resource(
    {
        'volume_type': c.STRING,
        'properties': c.OBJECT,
        'boot_index': c.INTEGER,
        'volume_id': c.STRING,
        **_COMMON,
    },
    required=['links'],
    title='VolumeTarget',
)
TARGETS = c.page('targets', TARGET)
#: ``GET /v1/volume`` and ``GET /v1/nodes/{node_ident}/volume``.
LINKS = c.resource(
    {'links': c.LINKS, 'connectors': c.LINKS, 'targets': c.LINKS},
    required=['links', 'connectors', 'targets'],
)
