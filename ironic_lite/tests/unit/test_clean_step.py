"""The @clean_step decorator, argument checks, collection, execution."""

import pytest

from ironic_lite import exception
from ironic_lite.common import states
from ironic_lite.drivers import base
from ironic_lite.tests.unit import FakeTask
from ironic_lite.tests.unit import make_conf

ARGSINFO = {
    'size': {'description': 'How much.', 'required': True},
    'mode': {'description': 'How.', 'required': False},
}


class RecordingManagement(base.ManagementInterface):
    def __init__(self, conf):
        super().__init__(conf)
        self.calls = []

    def get_boot_device(self, task):
        return {'boot_device': None, 'persistent': None}

    def set_boot_device(self, task, device, persistent=False):
        pass

    def get_supported_boot_devices(self, task):
        return []

    @base.clean_step(priority=10, argsinfo=ARGSINFO)
    def resize(self, task, size, mode='fast'):
        self.calls.append(('resize', size, mode))

    @base.clean_step(priority=0, abortable=True, idempotent=True)
    def slow(self, task):
        return states.CLEANWAIT

    @base.clean_step(priority=5)
    def broken(self, task):
        return 'finished'

    def not_a_step(self, task):
        self.calls.append('not_a_step')


@pytest.fixture
def iface():
    return RecordingManagement(make_conf())


def test_decorator_keeps_function_and_metadata():
    def step(self, task):
        return 'ran'

    decorated = base.clean_step(
        7, abortable=True, argsinfo=ARGSINFO, idempotent=True
    )(step)
    assert decorated is step
    assert decorated._clean_step == base.StepInfo(7, True, ARGSINFO, True)
    # Not idempotent unless declared: never run twice.
    assert base.clean_step(7)(step)._clean_step.idempotent is False


@pytest.mark.parametrize('priority', [-1, 1.5, '10', None, True])
def test_decorator_rejects_bad_priority(priority):
    with pytest.raises(exception.InvalidParameterValue, match='priority'):
        base.clean_step(priority)


def test_decorator_rejects_bad_abortable():
    with pytest.raises(exception.InvalidParameterValue, match='abortable'):
        base.clean_step(1, abortable='yes')
    with pytest.raises(exception.InvalidParameterValue, match='idempotent'):
        base.clean_step(1, idempotent=1)


@pytest.mark.parametrize(
    'argsinfo',
    [
        ['size'],
        {'size': 'big'},
        {'size': {'required': True}},
        {'size': {'description': 3}},
        {'size': {'description': 'x', 'required': 'no'}},
        {'size': {'description': 'x', 'default': 1}},
        {'size': {'description': 'x', 'type': 'huge'}},
        {'size': {'description': 'x', 'minimum': 'one'}},
        {'size': {'description': 'x', 'enum': 'abc'}},
    ],
)
def test_decorator_rejects_bad_argsinfo(argsinfo):
    with pytest.raises(exception.InvalidParameterValue):
        base.clean_step(1, argsinfo=argsinfo)


def test_collects_decorated_methods_only(iface):
    steps = iface.get_clean_steps(FakeTask())
    assert steps == [
        {
            'step': 'broken',
            'priority': 5,
            'interface': 'management',
            'abortable': False,
            'idempotent': False,
            'argsinfo': None,
        },
        {
            'step': 'resize',
            'priority': 10,
            'interface': 'management',
            'abortable': False,
            'idempotent': False,
            'argsinfo': ARGSINFO,
        },
        {
            'step': 'slow',
            'priority': 0,
            'interface': 'management',
            'abortable': True,
            'idempotent': True,
            'argsinfo': None,
        },
    ]


def test_collected_steps_are_copies(iface):
    iface.get_clean_steps(FakeTask())[1]['argsinfo']['size']['x'] = 1
    assert 'x' not in iface.get_clean_steps(FakeTask())[1]['argsinfo']['size']


def test_execute_passes_args(iface):
    result = iface.execute_clean_step(
        FakeTask(),
        {
            'interface': 'management',
            'step': 'resize',
            'args': {'size': 3, 'mode': 'slow'},
        },
    )
    assert result is None
    assert iface.calls == [('resize', 3, 'slow')]


def test_execute_async_step_returns_clean_wait(iface):
    assert (
        iface.execute_clean_step(
            FakeTask(), {'interface': 'management', 'step': 'slow'}
        )
        == states.CLEANWAIT
    )


def test_execute_rejects_unexpected_result(iface):
    with pytest.raises(exception.NodeCleaningFailure, match="'finished'"):
        iface.execute_clean_step(
            FakeTask(),
            {'interface': 'management', 'step': 'broken', 'args': {}},
        )


@pytest.mark.parametrize(
    'step',
    [
        {'interface': 'management', 'step': 'not_a_step'},
        {'interface': 'management', 'step': 'nope'},
        {'interface': 'management', 'step': '__init__'},
        {'interface': 'deploy', 'step': 'resize', 'args': {'size': 1}},
    ],
)
def test_execute_refuses_non_steps(iface, step):
    with pytest.raises(exception.CleanStepNotFound):
        iface.execute_clean_step(FakeTask(), step)
    assert iface.calls == []


def test_execute_validates_args(iface):
    with pytest.raises(exception.InvalidParameterValue, match='size'):
        iface.execute_clean_step(
            FakeTask(),
            {'interface': 'management', 'step': 'resize', 'args': {}},
        )
    assert iface.calls == []


def test_validate_args_accepts_valid():
    base.validate_step_args({'args': {'size': 1}}, ARGSINFO)
    base.validate_step_args({'args': {'size': 1, 'mode': 'x'}}, ARGSINFO)
    base.validate_step_args({}, None)


def test_validate_args_rejects_unknown():
    step = {
        'interface': 'deploy',
        'step': 'erase',
        'args': {'size': 1, 'colour': 'red'},
    }
    with pytest.raises(exception.InvalidParameterValue) as err:
        base.validate_step_args(step, ARGSINFO)
    assert 'deploy.erase' in str(err.value)
    assert 'colour' in str(err.value)


def test_validate_args_rejects_any_arg_without_argsinfo():
    with pytest.raises(exception.InvalidParameterValue, match='x'):
        base.validate_step_args({'args': {'x': 1}}, None)


def test_validate_args_rejects_missing_required():
    with pytest.raises(exception.InvalidParameterValue) as err:
        base.validate_step_args({'args': {'mode': 'x'}}, ARGSINFO)
    assert 'requires' in str(err.value) and 'size' in str(err.value)


TYPED = {
    'passes': {
        'description': 'n',
        'type': 'integer',
        'minimum': 1,
        'maximum': 10,
    },
    'seconds': {'description': 's', 'type': 'number', 'minimum': 0},
    'mode': {'description': 'm', 'enum': ['fast', 'slow']},
    'label': {'description': 'l', 'type': 'string', 'maxLength': 3},
}


@pytest.mark.parametrize(
    'args',
    [
        {'passes': 1},
        {'passes': 10},
        {'seconds': 0},
        {'seconds': 2.5},
        {'mode': 'slow'},
        {'label': 'abc'},
        {},
    ],
)
def test_validate_args_accepts_what_argsinfo_allows(args):
    base.validate_step_args({'args': args}, TYPED)


@pytest.mark.parametrize(
    'args,words',
    [
        ({'passes': 0}, ['passes', 'minimum']),
        ({'passes': 11}, ['passes', 'maximum']),
        ({'passes': '2'}, ['passes', 'integer']),
        ({'passes': 2.0}, ['passes', 'integer']),
        ({'passes': True}, ['passes', 'integer']),
        ({'seconds': -1}, ['seconds', 'minimum']),
        ({'seconds': '1'}, ['seconds', 'number']),
        ({'mode': 'medium'}, ['mode', 'medium']),
        ({'label': 'abcd'}, ['label', 'long']),
    ],
)
def test_validate_args_checks_type_and_range(args, words):
    """The defect: passes=0, passes="2", seconds=-1 were accepted and
    failed the node later."""
    with pytest.raises(exception.InvalidParameterValue) as err:
        base.validate_step_args(
            {'interface': 'deploy', 'step': 'x', 'args': args}, TYPED
        )
    for word in words:
        assert word in str(err.value)


def test_validate_args_rejects_non_dict():
    with pytest.raises(exception.InvalidParameterValue, match='object'):
        base.validate_step_args({'args': ['size']}, ARGSINFO)


def test_base_poll_default_is_not_finished(iface):
    assert iface.poll_clean_step(FakeTask()) is False


@pytest.mark.parametrize(
    'cls',
    [base.PowerInterface, base.ManagementInterface, base.DeployInterface],
)
def test_interface_bases_are_abstract(cls):
    with pytest.raises(TypeError):
        cls(make_conf())
