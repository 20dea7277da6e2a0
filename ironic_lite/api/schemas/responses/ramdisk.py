"""What the ramdisk endpoints answer an agent (lookup, continue
inspection)."""

from ironic_lite.api.schemas.responses import common as c

#: The node fields an agent sees and its configuration.
AGENT_ANSWER = c.resource(
    {
        'node': c.resource(
            {
                'uuid': c.STRING,
                'properties': c.OBJECT,
                'instance_info': c.OBJECT,
                'driver_internal_info': c.OBJECT,
                'links': c.LINKS,
            },
            required=['uuid', 'links'],
        ),
        'config': c.OBJECT,
    },
    required=['node', 'config'],
)
#: ``POST /v1/continue_inspection`` at 1.1 (the old inspector's answer)
#: or from 1.84 (the agent's).
CONTINUED = {
    'anyOf': [c.resource({'uuid': c.STRING}, required=['uuid']), AGENT_ANSWER]
}
