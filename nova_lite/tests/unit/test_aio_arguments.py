"""stacklite-aio's command line: how clients authenticate."""

import pytest

from stacklite import aio


def test_the_aio_identity_defaults_to_keystone(tmp_path):
    def identity(*argv: str) -> str:
        return aio.parse_args(['--state-dir', str(tmp_path), *argv]).identity

    assert identity() == 'keystone'
    assert identity('--identity', 'http_basic') == 'http_basic'
    assert identity('--noauth') == 'noauth'
    with pytest.raises(SystemExit):
        identity('--noauth', '--identity', 'keystone')
