"""The local driver's console log on real files: a line per boot (from
which image, the rescue image or the rebuilt disk) and per power change,
the guest's host name at the login prompt, the oldest lines dropped past
the size bound, none for a guest that is not here; and the agent's tail
of it."""

import types

import pytest

from nova_lite import exception
from nova_lite.common import console_output
from nova_lite.tests.unit.test_local_driver_move import _driver
from nova_lite.virt import local_console


def _instance() -> types.SimpleNamespace:
    return types.SimpleNamespace(
        uuid='11111111-2222-3333-4444-555555555555',
        image_ref='img',
        root_gb=1,
        hostname='guest-1',
    )


def _events(driver, inst) -> list[str]:
    """The lines without their time stamps."""
    return [
        line.split('] ', 1)[1]
        for line in driver.get_console_output(inst).splitlines()
    ]


def test_every_boot_and_power_change_is_logged(conf, tmp_path):
    driver = _driver(conf, tmp_path, 'a')
    inst = _instance()
    driver.spawn(inst)
    assert _events(driver, inst) == [
        'Booting from image img (boot 1)',
        'guest-1 login:',
    ]
    driver.reboot(inst, 'SOFT')
    driver.power_off(inst)
    driver.power_off(inst)  # no change: no line
    driver.power_on(inst)
    driver.pause(inst)
    driver.unpause(inst)
    driver.suspend(inst)
    driver.resume(inst)
    driver.rescue(inst, 'rescue-img', 'pw')
    driver.unrescue(inst)
    driver.rebuild(inst, 'img-2')
    assert _events(driver, inst)[2:] == [
        'Booting from disk (boot 2)',
        'guest-1 login:',
        'Powered off',
        'Booting from disk (boot 3)',
        'guest-1 login:',
        'Paused',
        'Resumed',
        'Suspended',
        'Resumed',
        'Booting from rescue image rescue-img (boot 4)',
        'guest-1 login:',
        'Booting from disk (boot 5)',
        'guest-1 login:',
        'Booting from disk, rebuilt from image img-2 (boot 6)',
        'guest-1 login:',
    ]
    assert 'pw' not in driver.get_console_output(inst)
    assert driver.get_console_output(inst).startswith('[20')


def test_a_guest_that_is_not_here_has_no_console(conf, tmp_path):
    driver = _driver(conf, tmp_path, 'a')
    inst = _instance()
    with pytest.raises(exception.ConsoleNotAvailable):
        driver.get_console_output(inst)
    driver.spawn(inst)
    driver.destroy(inst)
    with pytest.raises(exception.ConsoleNotAvailable):
        driver.get_console_output(inst)


def test_the_log_keeps_its_newest_lines_within_its_bound(
    tmp_path, monkeypatch
):
    monkeypatch.setattr(local_console, 'MAX_BYTES', 1000)
    path = tmp_path / 'console.log'
    for number in range(200):
        local_console.append(path, f'line {number}')
    text = local_console.read(path)
    assert len(text.encode()) <= 1000
    lines = text.splitlines()
    assert lines[-1].endswith('line 199')
    # Whole lines only, in order.
    numbers = [int(line.rsplit(' ', 1)[1]) for line in lines]
    assert numbers == list(range(numbers[0], 200))
    assert not path.with_name('console.log.part').exists()


@pytest.mark.parametrize(
    'length, expected',
    [
        (None, 'a\nb\nc\n'),
        (-1, 'a\nb\nc\n'),
        (0, ''),
        (1, ''),
        (2, 'c\n'),
        (3, 'b\nc\n'),
        (10, 'a\nb\nc\n'),
    ],
    ids=['none', 'minus-one', 'zero', 'one', 'two', 'three', 'more'],
)
def test_the_tail_counts_lines_as_upstream(length, expected):
    assert console_output.tail('a\nb\nc\n', length) == expected


def test_control_characters_are_removed_but_tab_and_newline():
    assert console_output.cleaned('a\tb\r\n\x1b[0mc\x00') == 'a\tb\n[0mc'
