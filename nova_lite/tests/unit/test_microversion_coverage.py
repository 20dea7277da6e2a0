"""Every microversion listed in microversion.py's history is exercised
by some gabbi test at that version (an ``openstack-api-version:
compute 2.N`` header), so a version added without a test fails here."""

from pathlib import Path
import re

from nova_lite.api import microversion

GABBITS = Path(__file__).parents[1] / 'functional' / 'gabbits'
_LISTED = re.compile(r'^\* (2\.\d+)\s+-', re.MULTILINE)
_HEADER = re.compile(
    r'(?:openstack-api-version:\s*"?compute|x-openstack-nova-api-version:)'
    r'\s*"?(2\.\d+)', re.IGNORECASE)


def _listed() -> list[str]:
    return _LISTED.findall(microversion.__doc__ or '')


def _tested() -> set[str]:
    found: set[str] = set()
    for path in GABBITS.glob('*.yaml'):
        found.update(_HEADER.findall(path.read_text()))
    return found


def _key(version: str) -> tuple[int, int]:
    major, minor = version.split('.')
    return int(major), int(minor)


def test_the_history_is_parsed():
    listed = _listed()
    assert '2.1' in listed and microversion.MAX_VERSION in listed


def test_every_listed_version_from_2_60_has_a_gabbi_test():
    missing = [v for v in _listed()
               if _key(v) >= (2, 60) and v not in _tested()]
    assert missing == []


def test_no_listed_version_beyond_the_maximum():
    assert all(_key(v) <= _key(microversion.MAX_VERSION) for v in _listed())
