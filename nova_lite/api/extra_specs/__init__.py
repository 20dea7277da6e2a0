"""Validation of known flavor extra specs (microversion 2.86), as
upstream: a spec whose name is known must have a valid value; a name in
a known namespace (``hw``, ``hw_rng``, ``hw_video``, ``os``, ``quota``,
``resources{group}``, ``trait{group}``, ``aggregate_instance_extra_specs``,
``capabilities``, ``accel``, ``pci_passthrough``, ``vmware``) that no
spec matches is refused; anything else (no namespace, or another one)
is accepted as it is.
"""

import functools
import re

from nova_lite import exception
from nova_lite.api.extra_specs import hw
from nova_lite.api.extra_specs import others
from nova_lite.api.extra_specs import placement
from nova_lite.api.extra_specs.rules import Spec


class Registry:
    """Every known spec, by name, and the namespaces they live in."""

    def __init__(self, specs: list[Spec]) -> None:
        self.by_name = {spec.name: spec for spec in specs}
        self.patterns = [
            (re.compile(spec.name_regex), spec)
            for spec in specs
            if spec.parameters
        ]
        self.namespaces = [
            re.compile(ns) for ns in {spec.namespace for spec in specs} if ns
        ]

    def find(self, name: str) -> Spec | None:
        spec = self.by_name.get(name)
        if spec is not None:
            return spec
        return next(
            (spec for regex, spec in self.patterns if regex.fullmatch(name)),
            None,
        )

    def in_known_namespace(self, name: str) -> bool:
        if ':' not in name:
            return False
        prefix = name.split(':', 1)[0]
        return any(ns.fullmatch(prefix) for ns in self.namespaces)


@functools.cache
def registry() -> Registry:
    return Registry(hw.SPECS + placement.SPECS + others.SPECS)


def validate(name: str, value: str) -> None:
    """Raise Invalid (upstream's message) when ``name`` is a known extra
    spec with an invalid ``value``, or an unknown name in a known
    namespace."""
    known = registry()
    spec = known.find(name)
    if spec is not None:
        spec.value.check(value)
    elif known.in_known_namespace(name):
        raise exception.Invalid(
            f"Validation failed; extra spec '{name}' does not appear to be "
            'a valid extra spec.'
        )
