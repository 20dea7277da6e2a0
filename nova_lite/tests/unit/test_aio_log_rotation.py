"""The all-in-one's log, and those of its emulated machines' agents,
are rotated by size (issue 30: they grew ~1 KB per request without
end).

The configuration is the one ``stacklite-aio`` builds (its command line,
oslo.config files, oslo.log's own handlers); the lines are written
directly, 3.5 MB of them, rather than by 3,500 requests.
"""

from collections.abc import Iterator
import logging as std_logging
from pathlib import Path

from oslo_config import cfg
from oslo_log import log as logging
import pytest

from ironic_lite.agent import main as agent_main
from nova_lite.cmd import common
from stacklite import aio
from stacklite import emulated_machines

MIB = 1024 * 1024


@pytest.fixture
def root_logging() -> Iterator[None]:
    """oslo.log replaces the root logger's handlers: put them back."""
    root = std_logging.getLogger()
    handlers, level = root.handlers[:], root.level
    yield
    for handler in root.handlers:
        if handler not in handlers:
            handler.close()
    root.handlers[:] = handlers
    root.setLevel(level)


def aio_logging(state: Path, *options: str) -> cfg.ConfigOpts:
    """Logging set up as ``stacklite-aio --state-dir state *options``."""
    args = aio.parse_args(['--state-dir', str(state), '--noauth', *options])
    conf = common.load_config(
        aio._oslo_argv(args), 'stacklite-aio', cfg.ConfigOpts()
    )
    aio.configure(conf, args, state)
    logging.setup(conf, common.PROJECT)
    return conf


def write_log(megabytes: float) -> None:
    log = std_logging.getLogger('stacklite.test')
    for number in range(int(megabytes * 1024)):
        log.warning('line %d %s', number, 'x' * 1000)


def test_the_log_rotates_at_its_size_and_keeps_its_count(
    tmp_path: Path, root_logging: None
) -> None:
    aio_logging(tmp_path, '--log-max-size-mb', '1', '--log-max-files', '2')
    write_log(3.5)
    files = sorted(tmp_path.glob('stacklite.log*'))
    assert [f.name for f in files] == [
        'stacklite.log',
        'stacklite.log.1',
        'stacklite.log.2',
    ]
    assert all(f.stat().st_size <= MIB for f in files)
    assert (
        files[0]
        .read_text()
        .splitlines()[-1]
        .endswith('line 3583 ' + 'x' * 1000)
    )
    assert all(f.stat().st_mode & 0o077 == 0 for f in files)


def test_rotation_is_on_by_default(tmp_path: Path, root_logging: None) -> None:
    conf = aio_logging(tmp_path)
    assert conf.log_rotation_type == 'size'
    assert conf.max_logfile_size_mb == aio.LOG_MAX_SIZE_MB
    assert conf.max_logfile_count == aio.LOG_MAX_FILES


def test_oslo_log_options_in_a_config_file_are_kept(
    tmp_path: Path, root_logging: None
) -> None:
    """An operator who rotates with logrotate turns it off."""
    extra = tmp_path / 'extra.conf'
    extra.write_text(
        '[DEFAULT]\nlog_rotation_type = none\nmax_logfile_count = 9\n'
    )
    conf = aio_logging(tmp_path, '--config-file', str(extra))
    assert conf.log_rotation_type == 'none'
    assert conf.max_logfile_count == 9
    write_log(1.5)
    assert [f.name for f in tmp_path.glob('stacklite.log*')] == [
        'stacklite.log'
    ]


def test_a_rotation_option_below_one_is_refused(tmp_path: Path) -> None:
    with pytest.raises(SystemExit):
        aio.parse_args(['--state-dir', str(tmp_path), '--log-max-files', '0'])


def test_the_emulated_agents_rotate_their_logs_as_the_aio(
    tmp_path: Path, root_logging: None
) -> None:
    """The options of an agent the all-in-one starts, read by the
    agent's own configuration loading."""
    state = tmp_path / 'state'
    state.mkdir()
    conf = aio_logging(state, '--log-max-size-mb', '1', '--log-max-files', '2')
    rotation = aio.agent_log_rotation(conf)
    assert rotation == emulated_machines.LogRotation(1, 2)
    agent = emulated_machines.Agent(
        tmp_path,
        'http://127.0.0.1:9',
        '52:54:01:00:00:01',
        [tmp_path / 'sda.img'],
        2.0,
        log_rotation=rotation,
    )
    agent_main.load_config(agent.argv[1:])
    write_log(2.5)
    assert sorted(f.name for f in tmp_path.glob('agent.log*')) == [
        'agent.log',
        'agent.log.1',
        'agent.log.2',
    ]


def test_agents_are_not_rotated_when_the_aio_is_not(
    tmp_path: Path, root_logging: None
) -> None:
    extra = tmp_path / 'extra.conf'
    extra.write_text('[DEFAULT]\nlog_rotation_type = none\n')
    conf = aio_logging(tmp_path, '--config-file', str(extra))
    assert aio.agent_log_rotation(conf) is None
