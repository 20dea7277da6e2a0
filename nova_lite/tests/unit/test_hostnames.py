"""Host names derived from display names, with upstream Nova's results
(``sanitize_hostname`` and ``_populate_instance_names``)."""

import pytest

from nova_lite.common import hostnames

UUID = '6f5d3b1c-2a4e-4f6b-9c8d-7e6f5a4b3c2d'


@pytest.mark.parametrize(
    'name, expected',
    [
        ('\u7684myamazinghostname', 'myamazinghostname'),
        ('....test.example.com...', 'test-example-com'),
        ('----my-amazing-hostname---', 'my-amazing-hostname'),
        (
            '(#@&$!(@*--#&91)(__=+--test-host.example!!.com-0+',
            '91----test-host-example-com-0',
        ),
        ('<}\x1fh\x10e\x08l\x02l\x05o\x12!{>', 'hello'),
        ('\u7684', ''),
        ('---...', ''),
        (' a b c ', 'a-b-c'),
        ('My Web_Server.01', 'my-web-server-01'),
        # Latin-1 letters and digits are kept (lower case); beyond U+00FF
        # everything goes.
        ('Caf\u00c9 \u00b2', 'caf\u00e9-\u00b2'),
        ('\u0141\u00f3d\u017a', '\u00f3d'),
        ('', ''),
    ],
)
def test_sanitize(name, expected):
    assert hostnames.sanitize(name) == expected


def test_cut_to_63_before_cleaning():
    assert len(hostnames.sanitize('a' * 64)) == 63
    # Cut to 63, then the trailing hyphen goes: 62 left.
    assert hostnames.sanitize('a' * 62 + '-a') == 'a' * 62
    # Characters dropped after the cut leave it shorter still.
    assert hostnames.sanitize('!' * 60 + 'abcdef') == 'abc'


def test_default_when_nothing_is_left():
    assert hostnames.sanitize('\u7684hello', 'Server-1') == 'hello'
    assert hostnames.sanitize('\u7684', 'Server-1') == 'Server-1'
    assert hostnames.sanitize('\u7684', 'a' * 64) == 'a' * 63


def test_for_one_server():
    assert hostnames.for_server('Web 1', UUID) == 'web-1'
    assert hostnames.for_server('!!!', UUID) == f'Server-{UUID}'
    assert hostnames.for_server(None, UUID) == f'Server-{UUID}'


def test_for_a_multiple_create():
    assert hostnames.for_server('Web', UUID, count=3, index=0) == 'web-1'
    assert hostnames.for_server('Web', UUID, count=3, index=2) == 'web-3'
    # Nothing left of the name: no suffix (the uuid tells them apart).
    assert (
        hostnames.for_server('***', UUID, count=2, index=1) == f'Server-{UUID}'
    )
