"""Every microversion listed in microversion.py's history is exercised
by gabbi tests at its edge: some YAML file sends that version (an
``openstack-api-version: compute 2.N`` header) and also the one before
it (2.N-1), so the old and the new behaviour are asserted side by side.
A version added without such a test fails here."""

from pathlib import Path
import re

from nova_lite.api import microversion

GABBITS = Path(__file__).parents[1] / 'functional' / 'gabbits'
_LISTED = re.compile(r'^\* (2\.\d+)\s+-', re.MULTILINE)
_HEADER = re.compile(
    r'(?:openstack-api-version:\s*"?compute|x-openstack-nova-api-version:)'
    r'\s*"?(2\.\d+)\b',
    re.IGNORECASE,
)
#: The first version with a change of its own (2.1 is the base).
FIRST_CHANGE = (2, 2)


def _listed() -> list[str]:
    return _LISTED.findall(microversion.__doc__ or '')


def _versions_per_file() -> dict[str, set[str]]:
    """YAML file name -> the versions its requests send."""
    return {
        path.name: set(_HEADER.findall(path.read_text()))
        for path in sorted(GABBITS.glob('*.yaml'))
    }


def _key(version: str) -> tuple[int, int]:
    major, minor = version.split('.')
    return int(major), int(minor)


def _previous(version: str) -> str:
    major, minor = _key(version)
    return f'{major}.{minor - 1}'


def _changes() -> list[str]:
    return [v for v in _listed() if _key(v) >= FIRST_CHANGE]


def test_the_history_is_parsed():
    listed = _listed()
    assert '2.1' in listed and microversion.MAX_VERSION in listed
    assert '2.2' in listed and '2.59' in listed


def test_the_header_pattern():
    text = (
        'openstack-api-version: compute 2.74\n'
        '    OpenStack-API-Version: "compute 2.9"\n'
        'x-openstack-nova-api-version: 2.100\n'
    )
    assert set(_HEADER.findall(text)) == {'2.74', '2.9', '2.100'}
    assert _previous('2.100') == '2.99' and _previous('2.10') == '2.9'


def test_every_listed_version_has_a_gabbi_test():
    tested = set().union(*_versions_per_file().values())
    missing = [v for v in _changes() if v not in tested]
    assert missing == []


def test_every_listed_version_is_tested_beside_the_one_before():
    files = _versions_per_file()
    unpaired = [
        v
        for v in _changes()
        if not any({v, _previous(v)} <= sent for sent in files.values())
    ]
    assert unpaired == []


def test_no_listed_version_beyond_the_maximum():
    assert all(_key(v) <= _key(microversion.MAX_VERSION) for v in _listed())
