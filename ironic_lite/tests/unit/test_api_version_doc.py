"""The documented microversion history lists every version the API has."""

from pathlib import Path
import re

from ironic_lite.api import microversion

DOC = (Path(__file__).resolve().parents[3] / 'doc' / 'source' / 'api'
       / 'baremetal-api.rst')


def test_every_version_is_documented_and_the_maximum_is_stated():
    text = DOC.read_text()
    documented = re.findall(r'^   \* - (1\.\d+)$', text, re.M)
    versions = [version for version, _change in microversion.HISTORY]
    assert documented == versions, (
        'doc/source/api/baremetal-api.rst and microversion.HISTORY differ')
    assert f'``latest`` means {microversion.MAX_VERSION}' in text
