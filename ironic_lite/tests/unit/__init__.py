"""Unit tests: no services, no database.

The helpers here stand in for what the conductor provides: a
configuration object and a task holding a node.
"""

import dataclasses
from typing import Any

from oslo_config import cfg

from ironic_lite import conf as ironic_conf
from ironic_lite.common import states


def make_conf(**overrides: Any) -> cfg.ConfigOpts:
    """A private configuration with every ironic_lite option; keyword
    arguments ``group__name=value`` (or ``name=value`` for [DEFAULT])
    override options."""
    conf = cfg.ConfigOpts()
    ironic_conf.register_all(conf)
    conf([], project='ironic-lite-test', default_config_files=[])
    for key, value in overrides.items():
        group, _sep, name = key.rpartition('__')
        conf.set_override(name, value, group=group or None)
    return conf


@dataclasses.dataclass
class FakeNode:
    uuid: str = '1be26c0b-03f2-4d2e-ae87-c02d7f33c123'
    driver: str = 'fake-hardware'
    power_state: str | None = states.POWER_OFF
    provision_state: str = states.MANAGEABLE
    properties: dict[str, Any] = dataclasses.field(default_factory=dict)
    driver_info: dict[str, Any] = dataclasses.field(default_factory=dict)
    driver_internal_info: dict[str, Any] = dataclasses.field(
        default_factory=dict
    )
    clean_step: dict[str, Any] = dataclasses.field(default_factory=dict)


@dataclasses.dataclass
class FakeTask:
    node: FakeNode = dataclasses.field(default_factory=FakeNode)
    context: Any = None
    checkpoints: int = 0

    def checkpoint(self) -> None:
        """Counted; the lock is never lost here."""
        self.checkpoints += 1
