"""ironic-lite-dbsync, run as its own process as an operator would."""

import subprocess
import sys

import sqlalchemy as sa


def _dbsync(tmp_path, *args, connection=None):
    conf = tmp_path / 'ironic-lite.conf'
    # One connection attempt: the default retries for 100 s.
    conf.write_text(
        '[database]\nmax_retries = 0\n'
        + (f'connection = {connection}\n' if connection else '')
    )
    return subprocess.run(
        [
            sys.executable,
            '-m',
            'ironic_lite.cmd.dbsync',
            '--config-file',
            str(conf),
            *args,
        ],
        capture_output=True,
        text=True,
        timeout=120,
        env={'PYTHONPATH': ':'.join(sys.path)},
    )


def _last_line(text):
    # Before it: alembic's log lines.
    return text.strip().splitlines()[-1]


def test_upgrade_is_the_default_and_idempotent(tmp_path):
    url = f'sqlite:///{tmp_path / "ironic.db"}'
    empty = _dbsync(tmp_path, 'version', connection=url)
    assert empty.returncode == 0, empty.stderr
    assert _last_line(empty.stdout) == 'None (empty)'

    for args in ((), ('upgrade',)):
        done = _dbsync(tmp_path, *args, connection=url)
        assert done.returncode == 0, done.stderr
        assert _last_line(done.stdout) == 'Database is at 0018'

    version = _dbsync(tmp_path, 'version', connection=url)
    assert _last_line(version.stdout) == '0018'
    tables = sa.inspect(sa.create_engine(url)).get_table_names()
    assert set(tables) == {
        'alembic_version',
        'conductors',
        'nodes',
        'volume_connectors',
        'volume_targets',
        'node_history',
        'node_traits',
        'bios_settings',
        'allocations',
        'chassis',
        'ports',
        'portgroups',
        'deploy_templates',
        'deploy_template_steps',
        'node_inventory',
        'firmware_information',
        'runbooks',
        'runbook_steps',
        'runbook_traits',
        'inspection_rules',
    }


def test_no_connection_is_a_clear_error(tmp_path):
    done = _dbsync(tmp_path)
    assert done.returncode == 1
    assert '[database]connection is not set' in done.stderr
    assert 'Traceback' not in done.stderr


def test_unreachable_server_is_a_clear_error(tmp_path):
    # Nothing listens on port 1.
    done = _dbsync(
        tmp_path, connection='mysql+pymysql://root@127.0.0.1:1/ironic'
    )
    assert done.returncode == 1
    assert 'cannot connect to the database' in done.stderr
    assert 'Traceback' not in done.stderr


def test_unopenable_sqlite_file_is_a_clear_error(tmp_path):
    done = _dbsync(tmp_path, connection='sqlite:////nonexistent/dir/x.db')
    assert done.returncode == 1
    assert 'database error: unable to open database file' in done.stderr
    assert 'Traceback' not in done.stderr


def test_unknown_command(tmp_path):
    done = _dbsync(tmp_path, 'downgrade')
    assert done.returncode != 0
    assert 'downgrade' in done.stderr
    assert 'Traceback' not in done.stderr
