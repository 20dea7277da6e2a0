"""Clean step ordering, overrides, duplicates and manual requests."""

import jsonschema
import pytest

from ironic_lite import exception
from ironic_lite import service
from ironic_lite.cmd import common
from ironic_lite.conductor import steps
from ironic_lite.drivers import base
from ironic_lite.drivers import fake
from ironic_lite.tests.unit import FakeTask
from ironic_lite.tests.unit import make_conf
from lite_common import daemon


class Power(fake.FakePower):
    @base.clean_step(priority=50)
    def power_check(self, task):
        pass


class Management(fake.FakeManagement):
    @base.clean_step(priority=50)
    def management_check(self, task):
        pass


def _interfaces(
    conf, power=Power, management=Management, deploy=fake.FakeDeploy
):
    return {
        'power': power(conf),
        'management': management(conf),
        'deploy': deploy(conf),
    }


def _names(step_list):
    return [f'{s["interface"]}.{s["step"]}:{s["priority"]}' for s in step_list]


def test_automated_order_and_tie_break():
    conf = make_conf()
    result = steps.automated_steps(FakeTask(), _interfaces(conf), conf)
    assert _names(result) == [
        'deploy.erase_devices_metadata:99',
        'management.verify_properties:80',
        'power.power_check:50',
        'management.management_check:50',
    ]


def test_tie_break_ignores_dict_order():
    conf = make_conf()
    interfaces = _interfaces(conf)
    reversed_interfaces = dict(reversed(list(interfaces.items())))
    assert steps.automated_steps(
        FakeTask(), reversed_interfaces, conf
    ) == steps.automated_steps(FakeTask(), interfaces, conf)


def test_fake_hardware_automated_steps():
    conf = make_conf()
    interfaces = _interfaces(
        conf, power=fake.FakePower, management=fake.FakeManagement
    )
    assert _names(steps.automated_steps(FakeTask(), interfaces, conf)) == [
        'deploy.erase_devices_metadata:99',
        'management.verify_properties:80',
    ]


def test_overrides_change_order_enable_and_disable():
    conf = make_conf(
        conductor__clean_step_priority_override=[
            'deploy.erase_devices_metadata:0',
            'deploy.erase_devices:60',
            'power.power_check:80',
        ]
    )
    result = steps.automated_steps(FakeTask(), _interfaces(conf), conf)
    assert _names(result) == [
        'power.power_check:80',
        'management.verify_properties:80',
        'deploy.erase_devices:60',
        'management.management_check:50',
    ]


def test_disabled_step_stays_available_manually():
    conf = make_conf(
        conductor__clean_step_priority_override=[
            'deploy.erase_devices_metadata:0'
        ]
    )
    interfaces = _interfaces(conf)
    manual = steps.manual_steps(FakeTask(), interfaces, conf)
    assert 'deploy.erase_devices_metadata:0' in _names(manual)
    api = steps.all_steps_for_api(FakeTask(), interfaces, conf)
    assert 'deploy.erase_devices_metadata:0' in _names(api['manual'])
    assert 'deploy.erase_devices_metadata' not in str(_names(api['automated']))


def test_all_steps_for_api():
    conf = make_conf()
    api = steps.all_steps_for_api(FakeTask(), _interfaces(conf), conf)
    assert api['automated'] == steps.automated_steps(
        FakeTask(), _interfaces(conf), conf
    )
    assert _names(api['manual']) == [
        'deploy.erase_devices:0',
        'deploy.fail_step:0',
        'deploy.one_shot_work:0',
        'deploy.repeatable_work:0',
        'deploy.wait_a_bit:0',
        'deploy.wait_for_gate:0',
    ]


def test_priority_overrides_parsing():
    conf = make_conf(
        conductor__clean_step_priority_override=[
            'deploy.erase_devices:0',
            'management.verify_properties:12',
        ]
    )
    assert steps.priority_overrides(conf) == {
        ('deploy', 'erase_devices'): 0,
        ('management', 'verify_properties'): 12,
    }


# Explicit ids: gabbi's pytest plugin claims test ids containing ':'.
@pytest.mark.parametrize(
    'value',
    [
        'erase_devices:0',
        'deploy.erase_devices',
        'deploy.erase_devices:-1',
        'raid.create:10',
        'deploy.erase devices:1',
    ],
    ids=[
        'no-interface',
        'no-priority',
        'negative',
        'unknown-interface',
        'space-in-step',
    ],
)
def test_bad_override_is_a_config_error(value, tmp_path, caplog):
    path = tmp_path / 'ironic-lite.conf'
    path.write_text(f'[conductor]\nclean_step_priority_override = {value}\n')
    conf = make_conf()
    conf(
        ['--config-file', str(path)],
        project='ironic-lite-test',
        default_config_files=[],
    )
    with pytest.raises(
        exception.InvalidParameterValue,
        match=r'clean_step_priority_override.*regex',
    ) as info:
        steps.priority_overrides(conf)
    assert 'interface.' not in str(info.value)
    assert '<interface>.<step>:<priority>' in str(info.value)
    # The conductor refuses to start: one log line and exit 78 (a
    # restart cannot fix it; systemd does not restart on it).
    assert (
        common.run_daemon(
            'ironic-lite-conductor', lambda: service.load_enabled_drivers(conf)
        )
        == daemon.EXIT_REFUSED
    )
    assert (
        'ironic-lite-conductor refuses to start: Invalid [conductor]'
        'clean_step_priority_override' in caplog.text
    )


def test_one_step_with_two_override_priorities_is_refused():
    conf = make_conf(
        conductor__clean_step_priority_override=[
            'deploy.erase_devices:0',
            'deploy.erase_devices:10',
        ]
    )
    with pytest.raises(
        exception.InvalidParameterValue,
        match='deploy.erase_devices is given priorities 0 and 10',
    ):
        steps.priority_overrides(conf)
    conf = make_conf(
        conductor__clean_step_priority_override=[
            'deploy.erase_devices:10',
            'deploy.erase_devices:10',
        ]
    )
    assert steps.priority_overrides(conf) == {('deploy', 'erase_devices'): 10}


def test_override_of_an_unknown_step_is_a_warning(caplog):
    conf = make_conf(
        conductor__clean_step_priority_override=['deploy.no_such_step:10']
    )
    assert service.load_enabled_drivers(conf) == ['fake-hardware']
    assert (
        'deploy.no_such_step, which no enabled deploy interface has'
        in caplog.text
    )


def test_duplicate_priority_names_both_steps(caplog):
    conf = make_conf()
    with pytest.raises(exception.DuplicateCleanStepPriority) as err:
        steps.check_duplicate_priorities(DuplicateDeploy(conf), conf)
    message = str(err.value)
    assert 'first_step' in message and 'second_step' in message
    assert 'priority 30' in message and 'deploy' in message
    assert 'first_step' in caplog.text and 'second_step' in caplog.text


class DuplicateDeploy(fake.FakeDeploy):
    @base.clean_step(priority=30)
    def first_step(self, task):
        pass

    @base.clean_step(priority=30)
    def second_step(self, task):
        pass


def test_duplicate_resolved_by_override():
    conf = make_conf(
        conductor__clean_step_priority_override=['deploy.second_step:31']
    )
    steps.check_duplicate_priorities(DuplicateDeploy(conf), conf)


def test_duplicate_created_by_override():
    conf = make_conf(
        conductor__clean_step_priority_override=['deploy.erase_devices:99']
    )
    with pytest.raises(
        exception.DuplicateCleanStepPriority, match='erase_devices'
    ):
        steps.check_duplicate_priorities(fake.FakeDeploy(conf), conf)


def test_priority_zero_steps_never_duplicate():
    conf = make_conf()
    for iface in _interfaces(conf).values():
        steps.check_duplicate_priorities(iface, conf)


def _available():
    conf = make_conf()
    return steps.manual_steps(FakeTask(), _interfaces(conf), conf)


def test_validate_manual_steps_normalizes():
    result = steps.validate_manual_steps(
        [
            {
                'interface': 'deploy',
                'step': 'wait_a_bit',
                'args': {'seconds': 2},
            },
            {'interface': 'deploy', 'step': 'erase_devices_metadata'},
        ],
        _available(),
    )
    assert result == [
        {
            'interface': 'deploy',
            'step': 'wait_a_bit',
            'args': {'seconds': 2},
            'abortable': True,
            'idempotent': True,
            'priority': 0,
        },
        {
            'interface': 'deploy',
            'step': 'erase_devices_metadata',
            'args': {},
            'abortable': False,
            'idempotent': True,
            'priority': 99,
        },
    ]


@pytest.mark.parametrize(
    'args', [{'passes': 0}, {'passes': '2'}, {'passes': 101}, {'passes': 1.5}]
)
def test_validate_manual_steps_checks_argument_values(args):
    """Item 5: refused when requested (400), not when the step runs."""
    with pytest.raises(exception.InvalidParameterValue, match='passes'):
        steps.validate_manual_steps(
            [{'interface': 'deploy', 'step': 'erase_devices', 'args': args}],
            _available(),
        )


def test_validate_manual_steps_refuses_what_cannot_be_stored():
    requested = [{'interface': 'deploy', 'step': 'erase_devices'}] * 356
    with pytest.raises(
        exception.InvalidParameterValue, match='as the conductor stores them'
    ):
        steps.validate_manual_steps(requested, _available())


@pytest.mark.parametrize(
    ('requested', 'words'),
    [
        (
            {'interface': 'deploy', 'step': 'format_moon'},
            ['format_moon', 'deploy', 'erase_devices'],
        ),
        (
            {'interface': 'power', 'step': 'erase_devices'},
            ['erase_devices', 'power', 'power_check'],
        ),
        (
            {
                'interface': 'deploy',
                'step': 'erase_devices',
                'args': {'passes': 2, 'force': True},
            },
            ['force', 'passes'],
        ),
    ],
)
def test_validate_manual_steps_rejects(requested, words):
    with pytest.raises(exception.InvalidParameterValue) as err:
        steps.validate_manual_steps([requested], _available())
    for word in words:
        assert word in str(err.value)


def test_validate_manual_steps_missing_required_arg():
    class Deploy(fake.FakeDeploy):
        @base.clean_step(
            priority=0,
            argsinfo={'target': {'description': 'Where.', 'required': True}},
        )
        def write_image(self, task, target):
            pass

    conf = make_conf()
    available = steps.manual_steps(
        FakeTask(), _interfaces(conf, deploy=Deploy), conf
    )
    with pytest.raises(
        exception.InvalidParameterValue, match='requires.*target'
    ):
        steps.validate_manual_steps(
            [{'interface': 'deploy', 'step': 'write_image'}], available
        )


@pytest.mark.parametrize(
    'body',
    [
        [{'interface': 'deploy', 'step': 'erase_devices'}],
        [{'interface': 'power', 'step': 'x', 'args': {'a': 1}}],
    ],
)
def test_schema_accepts(body):
    jsonschema.validate(body, steps.CLEAN_STEPS_SCHEMA)


@pytest.mark.parametrize(
    'body',
    [
        [],
        {'interface': 'deploy', 'step': 'erase_devices'},
        [{'interface': 'boot', 'step': 'x'}],
        [{'interface': 'deploy'}],
        [{'step': 'x'}],
        [{'interface': 'deploy', 'step': ''}],
        [{'interface': 'deploy', 'step': 'x', 'args': []}],
        [{'interface': 'deploy', 'step': 'x', 'priority': 1}],
    ],
)
def test_schema_rejects(body):
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(body, steps.CLEAN_STEPS_SCHEMA)
