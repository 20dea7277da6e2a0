"""What ironic_lite does not serve yet of each upstream microversion.

A version is *complete* when :data:`ironic_lite.api.version_history.HISTORY`
has it and :data:`GAPS` does not; :func:`honest_maximum` is the highest
version up to which every version is complete: the number the API may
advertise without a client believing in something that is not there.
The API reference's version table is written from these three sources
(``python -m ironic_lite.api.version_gaps``).

When a change lands, its version moves from here to ``HISTORY`` (or
its text here shrinks to what is still missing).
"""

import re
import sys

from ironic_lite.api import microversion as mv
from ironic_lite.api import upstream_versions
from ironic_lite.api import version_history
from lite_common.wsgi.microversion import APIVersion

#: version -> what of upstream's change is missing (or served otherwise).
GAPS: dict[str, str] = {}


def _served() -> dict[str, str]:
    return dict(version_history.HISTORY)


def upstream_versions_up_to(maximum: str) -> list[str]:
    top = APIVersion.parse(maximum)
    return [
        f'1.{minor}'
        for minor in sorted(upstream_versions.CHANGES)
        if APIVersion(1, minor) <= top
    ]


def is_complete(version: str) -> bool:
    return version in _served() and version not in GAPS


def honest_maximum() -> str:
    """The highest version up to which every version is complete."""
    honest = '1.0'
    for version in upstream_versions_up_to(upstream_versions.MAXIMUM):
        if not is_complete(version):
            break
        honest = version
    return honest


def _cell(text: str) -> str:
    """``text`` as plain reStructuredText: no reference (``CUSTOM_``)
    or emphasis (``*_interface``) by accident."""
    text = text.replace('\n', ' ').replace('*', '\\*')
    return re.sub(r'_(?=\W|$)', r'\\_', text)


def version_table() -> str:
    """The reStructuredText table of every upstream version: upstream's
    change, and what ironic_lite serves of it."""
    served = _served()
    lines = [
        '.. list-table::',
        '   :header-rows: 1',
        '   :widths: 8 40 52',
        '',
        '   * - Version',
        '     - Upstream change',
        '     - In ironic_lite',
    ]
    for version in upstream_versions_up_to(mv.MAX_VERSION):
        minor = int(version.split('.')[1])
        ours = served.get(version, '')
        if version in GAPS:
            gap = f'Not served: {GAPS[version]}'
            ours = f'{ours} {gap}' if ours else gap
        lines += [
            f'   * - {version}',
            f'     - {_cell(upstream_versions.CHANGES[minor])}',
            f'     - {_cell(ours)}',
        ]
    return '\n'.join(lines) + '\n'


def main() -> int:
    sys.stdout.write(version_table())
    return 0


if __name__ == '__main__':
    sys.exit(main())
