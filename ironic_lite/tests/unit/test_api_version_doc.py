"""The API reference states the maximum and includes the version table
(whose content test_api_version_gaps.py checks)."""

from pathlib import Path

from ironic_lite.api import microversion

DOC = (
    Path(__file__).resolve().parents[3]
    / 'doc'
    / 'source'
    / 'api'
    / 'baremetal-api.rst'
)


def test_the_maximum_is_stated_and_the_table_included():
    text = DOC.read_text()
    assert f'``latest`` means {microversion.COMPLETE_VERSION}' in text
    assert f'``latest`` means {microversion.MAX_VERSION}' in text
    assert '.. include:: baremetal-versions.inc' in text
