"""Option registration and defaults."""

from oslo_config import cfg

from ironic_lite import conf as ironic_conf
from ironic_lite.tests.unit import make_conf


def test_defaults():
    conf = make_conf()
    assert conf.conductor.automated_clean is True
    assert conf.conductor.clean_callback_timeout == 1800
    assert conf.conductor.clean_step_priority_override == []
    assert conf.conductor.workers_pool_size == 100
    assert conf.conductor.heartbeat_interval == 10
    assert conf.conductor.heartbeat_timeout == 60
    assert conf.enabled_hardware_types == ['fake-hardware']
    assert conf.enabled_power_interfaces == ['fake']
    assert conf.enabled_management_interfaces == ['fake']
    assert conf.enabled_deploy_interfaces == ['fake']
    assert conf.fake.power_delay == 0.0
    assert conf.fake.step_delay == 0.0


def test_register_all_is_idempotent():
    conf = cfg.ConfigOpts()
    ironic_conf.register_all(conf)
    ironic_conf.register_all(conf)
    conf([], default_config_files=[])
    assert conf.conductor.automated_clean is True


def test_overrides_stay_in_their_config_object():
    changed = make_conf(conductor__automated_clean=False, fake__step_delay=2.0)
    assert changed.conductor.automated_clean is False
    fresh = make_conf()
    assert fresh.conductor.automated_clean is True
    assert fresh.fake.step_delay == 0.0


def test_list_opts_covers_every_group_with_help():
    listed = dict(ironic_conf.list_opts())
    assert set(listed) == {
        None,
        'agent',
        'api',
        'conductor',
        'database',
        'deploy',
        'fake',
        'glance',
        'inspection_rules',
        'ipmi',
        'metrics',
        'neutron',
        'redfish',
    }
    for opts in listed.values():
        for opt in opts:
            assert opt.help and len(opt.help) > 20, opt.name
