"""The provision state machine and the state helpers."""

from automaton import exceptions as automaton_exc
import pytest

from ironic_lite import exception
from ironic_lite.common import states

# Written out on purpose, independently of states.TRANSITIONS: a
# changed transition table must change this list too.
EXPECTED = {
    ('enroll', 'manage'): 'verifying',
    ('verifying', 'done'): 'manageable',
    ('verifying', 'fail'): 'enroll',
    ('manageable', 'provide'): 'cleaning',
    ('manageable', 'clean'): 'cleaning',
    ('available', 'manage'): 'manageable',
    ('cleaning', 'done'): 'available',
    ('cleaning', 'manual done'): 'manageable',
    ('cleaning', 'wait'): 'clean wait',
    ('cleaning', 'fail'): 'clean failed',
    ('cleaning', 'abort'): 'clean failed',
    ('cleaning', 'hold'): 'clean hold',
    ('clean wait', 'resume'): 'cleaning',
    ('clean wait', 'fail'): 'clean failed',
    ('clean wait', 'abort'): 'clean failed',
    ('clean wait', 'hold'): 'clean hold',
    ('clean hold', 'unhold'): 'clean wait',
    ('clean hold', 'abort'): 'clean failed',
    ('clean hold', 'fail'): 'clean failed',
    ('clean failed', 'manage'): 'manageable',
    ('available', 'deploy'): 'deploying',
    ('deploying', 'done'): 'active',
    ('deploying', 'wait'): 'wait call-back',
    ('deploying', 'fail'): 'deploy failed',
    ('wait call-back', 'resume'): 'deploying',
    ('wait call-back', 'fail'): 'deploy failed',
    ('wait call-back', 'abort'): 'deploy failed',
    ('wait call-back', 'delete'): 'deleting',
    ('deploy failed', 'deploy'): 'deploying',
    ('active', 'rebuild'): 'deploying',
    ('deploy failed', 'rebuild'): 'deploying',
    ('error', 'rebuild'): 'deploying',
    ('active', 'delete'): 'deleting',
    ('deploy failed', 'delete'): 'deleting',
    ('error', 'delete'): 'deleting',
    ('deleting', 'clean'): 'cleaning',
    ('deleting', 'fail'): 'error',
    ('manageable', 'inspect'): 'inspecting',
    ('inspect failed', 'inspect'): 'inspecting',
    ('inspecting', 'done'): 'manageable',
    ('inspecting', 'fail'): 'inspect failed',
    ('inspecting', 'wait'): 'inspect wait',
    ('inspect wait', 'done'): 'manageable',
    ('inspect wait', 'fail'): 'inspect failed',
    ('inspect wait', 'abort'): 'inspect failed',
    ('inspect wait', 'resume'): 'inspecting',
    ('inspect failed', 'manage'): 'manageable',
    ('manageable', 'adopt'): 'adopting',
    ('adopting', 'done'): 'active',
    ('adopting', 'fail'): 'adopt failed',
    ('adopt failed', 'adopt'): 'adopting',
    ('adopt failed', 'manage'): 'manageable',
    ('active', 'rescue'): 'rescuing',
    ('rescuing', 'done'): 'rescue',
    ('rescuing', 'wait'): 'rescue wait',
    ('rescuing', 'fail'): 'rescue failed',
    ('rescue wait', 'resume'): 'rescuing',
    ('rescue wait', 'fail'): 'rescue failed',
    ('rescue wait', 'abort'): 'rescue failed',
    ('rescue', 'rescue'): 'rescuing',
    ('rescue', 'unrescue'): 'unrescuing',
    ('rescue', 'delete'): 'deleting',
    ('rescue failed', 'rescue'): 'rescuing',
    ('rescue failed', 'unrescue'): 'unrescuing',
    ('rescue failed', 'delete'): 'deleting',
    ('unrescuing', 'done'): 'active',
    ('unrescuing', 'fail'): 'unrescue failed',
    ('unrescue failed', 'rescue'): 'rescuing',
    ('unrescue failed', 'unrescue'): 'unrescuing',
    ('unrescue failed', 'delete'): 'deleting',
    # Servicing (1.87), upstream's transitions.
    ('active', 'service'): 'servicing',
    ('servicing', 'done'): 'active',
    ('servicing', 'fail'): 'service failed',
    ('servicing', 'wait'): 'service wait',
    ('servicing', 'hold'): 'service hold',
    ('service wait', 'hold'): 'service hold',
    ('service wait', 'resume'): 'servicing',
    ('service wait', 'fail'): 'service failed',
    ('service wait', 'abort'): 'service failed',
    ('service wait', 'delete'): 'deleting',
    ('service hold', 'service'): 'servicing',
    ('service hold', 'unhold'): 'service wait',
    ('service hold', 'fail'): 'service failed',
    ('service hold', 'abort'): 'service failed',
    ('service failed', 'service'): 'servicing',
    ('service failed', 'rescue'): 'rescuing',
    ('service failed', 'wait'): 'service wait',
    ('service failed', 'hold'): 'service hold',
    ('service failed', 'delete'): 'deleting',
    ('service failed', 'abort'): 'active',
}


@pytest.mark.parametrize(('source', 'event'), sorted(EXPECTED))
def test_allowed_transition(source, event):
    fsm = states.machine(source)
    fsm.process_event(event)
    assert fsm.current_state == EXPECTED[(source, event)]
    assert states.next_state(source, event) == EXPECTED[(source, event)]


def test_no_other_transition_exists():
    fsm = states.machine()
    assert {(src, event): dst for src, event, dst in fsm} == EXPECTED


@pytest.mark.parametrize(
    ('source', 'event'),
    [
        ('enroll', 'provide'),
        ('available', 'clean'),
        # The API verb: cleaning ends in manageable by "manual done" only.
        ('cleaning', 'manage'),
        ('clean failed', 'provide'),
        ('clean failed', 'done'),
        ('clean hold', 'resume'),
        ('active', 'deploy'),
        ('manageable', 'deploy'),
        ('deleting', 'done'),
        ('available', 'adopt'),
        ('active', 'adopt'),
    ],
)
def test_refused_transition(source, event):
    with pytest.raises(automaton_exc.NotFound):
        states.machine(source).process_event(event)
    with pytest.raises(exception.InvalidStateRequested) as err:
        states.next_state(source, event, node='node-1')
    assert err.value.code == 400
    assert source in str(err.value) and 'node-1' in str(err.value)


def test_machines_are_independent_copies():
    first = states.machine(states.MANAGEABLE)
    second = states.machine(states.MANAGEABLE)
    first.process_event('clean')
    assert second.current_state == states.MANAGEABLE
    assert states.machine().current_state == states.ENROLL


def test_machine_is_frozen():
    with pytest.raises(automaton_exc.FrozenMachine):
        states.machine().add_state('surprise')


def test_unknown_initial_state():
    with pytest.raises(automaton_exc.NotFound):
        states.machine('sleeping')


def test_clean_done_event_depends_on_target():
    fsm = states.machine(states.CLEANING)
    fsm.process_event(states.clean_done_event(states.MANAGEABLE))
    assert fsm.current_state == states.MANAGEABLE
    fsm = states.machine(states.CLEANING)
    fsm.process_event(states.clean_done_event(states.AVAILABLE))
    assert fsm.current_state == states.AVAILABLE
    with pytest.raises(exception.InvalidState):
        states.clean_done_event(states.ACTIVE)


def test_provision_verbs_map_to_events():
    assert states.ALLOWED_PROVISION_VERBS['active'] == 'deploy'
    assert states.ALLOWED_PROVISION_VERBS['deleted'] == 'delete'
    assert states.ALLOWED_PROVISION_VERBS['undeploy'] == 'delete'
    events = {event for _src, event, _dst in states.TRANSITIONS}
    assert set(states.ALLOWED_PROVISION_VERBS.values()) <= events


@pytest.mark.parametrize(
    'state',
    [
        states.CLEANING,
        states.CLEANWAIT,
        states.CLEANHOLD,
        states.DEPLOYING,
        states.DEPLOYWAIT,
        states.DELETING,
        states.VERIFYING,
    ],
)
def test_power_refused_in_transient_states(state):
    assert not states.power_action_allowed(state)


@pytest.mark.parametrize(
    'state',
    [
        states.CLEANFAIL,
        states.DEPLOYFAIL,
        states.ERROR,
        states.ENROLL,
        states.MANAGEABLE,
        states.AVAILABLE,
        states.ACTIVE,
    ],
)
def test_power_allowed_in_stable_and_failure_states(state):
    assert states.power_action_allowed(state)


def test_wire_names():
    assert (states.CLEANWAIT, states.CLEANFAIL, states.CLEANHOLD) == (
        'clean wait',
        'clean failed',
        'clean hold',
    )
    assert states.DEPLOYWAIT == 'wait call-back'
    assert states.POWER_ON == 'power on'
    assert states.STABLE_STATES <= states.ALL_STATES
