"""Honest microversions: every version is upstream's, and each one up
to the maximum is either served completely or says what is missing."""

from pathlib import Path
import re

from ironic_lite.api import microversion as mv
from ironic_lite.api import upstream_versions
from ironic_lite.api import version_gaps
from ironic_lite.api import version_history
from lite_common.wsgi.microversion import APIVersion

ROOT = Path(__file__).resolve().parents[3]
GABBITS = ROOT / 'ironic_lite' / 'tests' / 'functional' / 'gabbits'
TABLE = ROOT / 'doc' / 'source' / 'api' / 'baremetal-versions.inc'


def test_upstream_lists_every_version_once() -> None:
    assert sorted(upstream_versions.CHANGES) == list(range(1, 116))
    assert upstream_versions.MAXIMUM == '1.115'


def test_no_number_upstream_has_not_assigned() -> None:
    assert APIVersion.parse(mv.MAX_VERSION) <= APIVersion.parse(
        upstream_versions.MAXIMUM
    )
    upstream = set(version_gaps.upstream_versions_up_to(mv.MAX_VERSION))
    assert {v for v, _text in version_history.HISTORY} <= upstream
    assert set(version_gaps.GAPS) <= upstream


def test_every_version_is_served_or_says_what_is_missing() -> None:
    served = {v for v, _text in version_history.HISTORY}
    for version in version_gaps.upstream_versions_up_to(mv.MAX_VERSION):
        assert version in served or version in version_gaps.GAPS, version
    assert all(text.strip() for text in version_gaps.GAPS.values())


def test_the_honest_maximum_is_the_last_of_the_complete_prefix() -> None:
    honest = version_gaps.honest_maximum()
    for version in version_gaps.upstream_versions_up_to(honest):
        assert version_gaps.is_complete(version)
    following = APIVersion.parse(honest)
    following = APIVersion(following.major, following.minor + 1)
    assert not version_gaps.is_complete(str(following))


def test_the_advertised_maximum_is_the_honest_one() -> None:
    """By default the API advertises no version above the last of the
    complete prefix (a change that completes a version raises it)."""
    assert mv.COMPLETE_VERSION == version_gaps.honest_maximum()
    assert str(mv.versions_for(False).maximum) == mv.COMPLETE_VERSION
    assert str(mv.versions_for(True).maximum) == mv.MAX_VERSION


def test_every_complete_version_has_a_gabbi_test_at_it() -> None:
    """Each complete version's change is tested at its edge: some gabbi
    request asks for exactly that version."""
    asked = set()
    for path in GABBITS.glob('*.yaml'):
        asked |= set(
            re.findall(
                r'(?:x-openstack-ironic-api-version:|openstack-api-version: '
                r'baremetal)\s*"?(1\.\d+)"?',
                path.read_text(),
                re.I,
            )
        )
    missing = [
        v
        for v, _text in version_history.HISTORY
        if version_gaps.is_complete(v)
        and v not in asked
        and v != mv.MIN_VERSION
    ]
    assert missing == []


def test_the_documented_version_table_is_current() -> None:
    assert TABLE.read_text() == version_gaps.version_table(), (
        'regenerate it: python -m ironic_lite.api.version_gaps > '
        'doc/source/api/baremetal-versions.inc'
    )
