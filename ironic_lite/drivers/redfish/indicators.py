"""The indicator LEDs of a Redfish system, its chassis and its drives
(upstream's components and names): a system LED is named by the
system's UUID, a chassis LED by the chassis UUID, a drive LED by
``<storage id>:<drive id>``."""

from collections.abc import Callable
from typing import Any

from oslo_log import log as logging
import sushy

from ironic_lite import exception

LOG = logging.getLogger(__name__)

#: Redfish IndicatorLED -> ironic's indicator state.
STATES = {
    sushy.INDICATOR_LED_LIT: 'on',
    sushy.INDICATOR_LED_OFF: 'off',
    sushy.INDICATOR_LED_BLINKING: 'blinking',
    sushy.INDICATOR_LED_UNKNOWN: 'unknown',
}
_LED_OF = {state: led for led, state in STATES.items() if state != 'unknown'}
PROPERTIES = {'readonly': False, 'states': ['blinking', 'off', 'on']}


def _drives(system: Any) -> dict[str, Any]:
    return {
        f'{storage.identity}:{drive.identity}': drive
        for storage in system.storage.get_members()
        for drive in storage.drives
    }


def _resources(system: Any, node_uuid: str) -> dict[str, dict[str, Any]]:
    """component -> indicator name -> the sushy resource with the LED;
    a component the BMC does not describe is left out."""
    found: dict[str, dict[str, Any]] = {}
    readers: dict[str, Callable[[], dict[str, Any]]] = {
        'system': lambda: {system.uuid: system},
        'chassis': lambda: {
            chassis.uuid: chassis for chassis in system.chassis
        },
        'disk': lambda: _drives(system),
    }
    for component, read in readers.items():
        try:
            leds = {
                name: resource
                for name, resource in read().items()
                if resource.indicator_led is not None
            }
        except (sushy.exceptions.SushyError, AttributeError) as exc:
            LOG.debug(
                'Node %(node)s: no %(component)s indicator: %(err)s',
                {'node': node_uuid, 'component': component, 'err': exc},
            )
            continue
        if leds:
            found[component] = leds
    return found


def supported(system: Any, node_uuid: str) -> dict[str, dict[str, Any]]:
    return {
        component: {name: dict(PROPERTIES) for name in leds}
        for component, leds in _resources(system, node_uuid).items()
    }


def _find(system: Any, node_uuid: str, component: str, indicator: str) -> Any:
    leds = _resources(system, node_uuid)
    if component not in leds:
        raise exception.InvalidParameterValue(
            err=f'Invalid component {component} specified.'
        )
    if indicator not in leds[component]:
        raise exception.InvalidParameterValue(
            err=f'Invalid indicator {indicator} specified.'
        )
    return leds[component][indicator]


def get_state(
    system: Any, node_uuid: str, component: str, indicator: str
) -> str:
    resource = _find(system, node_uuid, component, indicator)
    return STATES.get(resource.indicator_led, 'unknown')


def set_state(
    system: Any, node_uuid: str, component: str, indicator: str, state: str
) -> None:
    if state not in _LED_OF:
        raise exception.InvalidParameterValue(
            err=f'Invalid indicator state {state} specified; it may be '
            f'one of {", ".join(sorted(_LED_OF))}.'
        )
    resource = _find(system, node_uuid, component, indicator)
    resource.set_indicator_led(_LED_OF[state])
