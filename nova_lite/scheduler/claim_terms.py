"""What a claim asks and what it found, without the database.

A flavor's extra specs read as the scheduler reads them (its resource
class, its traits, the resources a placement counts), and the results
of a destination's claim of a move (what ``Migration.claim_destination``
and ``claim_resize`` return). Compute agents read these and have no
database: they import this module, never
:mod:`nova_lite.scheduler.claims` (whose claims are the database's),
which uses and re-exports everything here.
"""

from typing import Any
from typing import cast

#: The hypervisor type of nodes that are whole machines (the ironic
#: virt driver's).
WHOLE_MACHINE_TYPE = 'ironic'


def flavor_resource_class(flavor: dict[str, Any] | None) -> str | None:
    """The custom resource class a flavor asks one of
    (``resources:CUSTOM_BAREMETAL=1``), None for a share of a
    hypervisor."""
    for key, value in ((flavor or {}).get('extra_specs') or {}).items():
        if key.startswith('resources:CUSTOM_') and str(value).strip() == '1':
            return cast('str | None', key.removeprefix('resources:'))
    return None


def flavor_traits(
    flavor: dict[str, Any] | None,
) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """(required, forbidden) traits of a flavor's extra specs
    (``trait:<NAME>=required`` / ``forbidden``, as upstream), sorted."""
    wanted: dict[str, list[str]] = {'required': [], 'forbidden': []}
    for key, value in ((flavor or {}).get('extra_specs') or {}).items():
        kind = str(value).strip().lower()
        if key.startswith('trait:') and kind in wanted:
            wanted[kind].append(key.removeprefix('trait:'))
    return tuple(sorted(wanted['required'])), tuple(
        sorted(wanted['forbidden'])
    )


def counted_resources(
    flavor: dict[str, Any] | None, vcpus: int, memory_mb: int, root_gb: int
) -> tuple[int, int, int]:
    """(vCPU, RAM, disk) a placement counts: the flavor's, unless its
    extra specs override one (``resources:VCPU=0`` etc., as a bare
    metal flavor does)."""
    specs = (flavor or {}).get('extra_specs') or {}

    def counted(key: str, default: int) -> int:
        try:
            return max(0, int(specs.get(f'resources:{key}', default)))
        except (TypeError, ValueError):
            return default

    return (
        counted('VCPU', vcpus),
        counted('MEMORY_MB', memory_mb),
        counted('DISK_GB', root_gb),
    )


# What a destination's claim of a move found.
CLAIMED = 'claimed'
ALREADY_CLAIMED = 'already-claimed'  # by this node, earlier: go on
NO_ROOM = 'no-room'
# The instance's server group's hard policy forbids the node's host
# (checked under the group's lock: another member got there first).
GROUP_POLICY = 'group-policy'
NOT_CLAIMABLE = 'not-claimable'  # ended, or claimed by another node
