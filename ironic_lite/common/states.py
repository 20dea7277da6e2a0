"""Provision and power states of a node, and the provision state machine.

State names are the upstream Bare Metal API wire names. The machine,
built once with automaton, is the only place that says which transition
exists::

    enroll --manage--> verifying --done--> manageable
                       verifying --fail--> enroll

    manageable --provide--> cleaning        (automated cleaning)
    manageable --clean----> cleaning        (manual cleaning)
    available  --manage---> manageable

    cleaning --done---> available           (automated cleaning finished)
    cleaning --manual done-> manageable     (manual cleaning finished)
    cleaning --wait---> clean wait          (a step runs asynchronously)
    cleaning --fail---> clean failed
    cleaning --abort--> clean failed        (between steps, see below)
    cleaning --hold---> clean hold
    clean wait --resume-> cleaning          (the async step finished)
    clean wait --fail---> clean failed      (step failed or timed out)
    clean wait --abort--> clean failed
    clean wait --hold---> clean hold
    clean hold --unhold-> clean wait
    clean hold --abort--> clean failed
    clean hold --fail---> clean failed
    clean failed --manage--> manageable

    available --deploy--> deploying --done--> active
    deploying --wait--> wait call-back --resume--> deploying
    deploying --fail--> deploy failed
    wait call-back --fail--> deploy failed
    wait call-back --abort--> deploy failed
    wait call-back --delete--> deleting
    deploy failed --deploy--> deploying
    active, deploy failed, error --delete--> deleting
    deleting --clean--> cleaning            (then as automated cleaning)
    deleting --fail---> error

    active --service--> servicing --done--> active   (API 1.87)
    servicing --wait--> service wait --resume--> servicing
    servicing, service wait --hold--> service hold --unhold--> service wait
    servicing, service wait, service hold --fail--> service failed
    service wait, service hold --abort--> service failed
    service failed --abort--> active (the steps' changes stay)
    service failed, service hold --service--> servicing
    service failed --rescue--> rescuing
    service failed, service wait --delete--> deleting

Where cleaning ends depends on why it started, which the conductor
knows from the node's ``target_provision_state``: it processes
:func:`clean_done_event` of that target. Events that only the conductor
processes (``done``, ``manual done``, ``fail``, ``wait``, ``resume``,
``hold``) are not API verbs: :data:`ALLOWED_PROVISION_VERBS` maps each
verb to its event, and ``manage`` on a node in ``cleaning`` has no
transition. ``abort`` in ``cleaning`` stops the cleaning at the next
step boundary, or at once within an abortable step (see the conductor's
``clean_wait`` module). When automated cleaning is
disabled, ``provide`` and tear down still pass through ``cleaning`` and
the conductor processes ``done`` at once: one path, no special event.

Power changes are refused while the conductor drives the node through
a transient state (see :func:`power_action_allowed`); ``clean failed``
allows them so that an operator can recover the node.
"""

from automaton import machines

from ironic_lite import exception

# Provision states (wire names).
ENROLL = 'enroll'
VERIFYING = 'verifying'
MANAGEABLE = 'manageable'
AVAILABLE = 'available'
DEPLOYING = 'deploying'
DEPLOYWAIT = 'wait call-back'
ACTIVE = 'active'
DEPLOYFAIL = 'deploy failed'
DELETING = 'deleting'
CLEANING = 'cleaning'
CLEANWAIT = 'clean wait'
CLEANFAIL = 'clean failed'
CLEANHOLD = 'clean hold'
ERROR = 'error'
INSPECTING = 'inspecting'
INSPECTFAIL = 'inspect failed'
INSPECTWAIT = 'inspect wait'
ADOPTING = 'adopting'
ADOPTFAIL = 'adopt failed'
RESCUING = 'rescuing'
RESCUEWAIT = 'rescue wait'
RESCUE = 'rescue'
RESCUEFAIL = 'rescue failed'
UNRESCUING = 'unrescuing'
UNRESCUEFAIL = 'unrescue failed'
SERVICING = 'servicing'
SERVICEWAIT = 'service wait'
SERVICEFAIL = 'service failed'
SERVICEHOLD = 'service hold'
#: States a node is in while it is serviced (upstream's).
SERVICING_STATES = frozenset(
    {SERVICING, SERVICEWAIT, SERVICEFAIL, SERVICEHOLD}
)

#: States a node rests in until someone asks for something.
STABLE_STATES = frozenset(
    {ENROLL, MANAGEABLE, AVAILABLE, ACTIVE, ERROR, RESCUE}
)

#: States a node leaves without a request (upstream's UNSTABLE_STATES).
UNSTABLE_STATES = frozenset(
    {
        DEPLOYING,
        DEPLOYWAIT,
        CLEANING,
        CLEANWAIT,
        VERIFYING,
        DELETING,
        INSPECTING,
        INSPECTWAIT,
        ADOPTING,
        RESCUING,
        RESCUEWAIT,
        UNRESCUING,
        SERVICING,
        SERVICEWAIT,
    }
)

#: States a failed flow leaves a node in; they wait for the operator.
FAILURE_STATES = frozenset(
    {
        CLEANFAIL,
        DEPLOYFAIL,
        ERROR,
        INSPECTFAIL,
        ADOPTFAIL,
        RESCUEFAIL,
        UNRESCUEFAIL,
        SERVICEFAIL,
    }
)

#: Transient states whose target never varies. While cleaning (cleaning,
#: clean wait, clean hold) the target is ``available`` for automated and
#: ``manageable`` for manual cleaning: the conductor sets it.
FIXED_TARGETS = {
    VERIFYING: MANAGEABLE,
    DEPLOYING: ACTIVE,
    DEPLOYWAIT: ACTIVE,
    DELETING: AVAILABLE,
    INSPECTING: MANAGEABLE,
    INSPECTWAIT: MANAGEABLE,
    ADOPTING: ACTIVE,
    RESCUING: RESCUE,
    RESCUEWAIT: RESCUE,
    UNRESCUING: ACTIVE,
    SERVICING: ACTIVE,
    SERVICEWAIT: ACTIVE,
    SERVICEHOLD: ACTIVE,
}

# Power states (wire names) and the extra power targets: "rebooting",
# and from API 1.27 the soft (ACPI) ones.
POWER_ON = 'power on'
POWER_OFF = 'power off'
REBOOT = 'rebooting'
SOFT_REBOOT = 'soft rebooting'
SOFT_POWER_OFF = 'soft power off'
POWER_STATES = frozenset({POWER_ON, POWER_OFF})
SOFT_POWER_TARGETS = frozenset({SOFT_REBOOT, SOFT_POWER_OFF})
POWER_TARGETS = frozenset({POWER_ON, POWER_OFF, REBOOT}) | SOFT_POWER_TARGETS
#: The power state each target ends in.
POWER_TARGET_STATES = {
    POWER_ON: POWER_ON,
    POWER_OFF: POWER_OFF,
    REBOOT: POWER_ON,
    SOFT_REBOOT: POWER_ON,
    SOFT_POWER_OFF: POWER_OFF,
}

#: States in which a power change would break what the conductor does.
POWER_LOCKED_STATES = frozenset(
    {
        VERIFYING,
        DEPLOYING,
        DEPLOYWAIT,
        DELETING,
        CLEANING,
        CLEANWAIT,
        CLEANHOLD,
        INSPECTING,
        INSPECTWAIT,
        ADOPTING,
        RESCUING,
        RESCUEWAIT,
        UNRESCUING,
        SERVICING,
        SERVICEWAIT,
        SERVICEHOLD,
    }
)

#: Transient states in which a node may be updated anyway (upstream's
#: UPDATE_ALLOWED_STATES): the failures, and inspection and
#: verification, which change nothing the update could break.
UPDATE_ALLOWED_STATES = frozenset(
    {
        DEPLOYFAIL,
        INSPECTING,
        INSPECTFAIL,
        INSPECTWAIT,
        CLEANFAIL,
        ERROR,
        VERIFYING,
        ADOPTFAIL,
        RESCUEFAIL,
        UNRESCUEFAIL,
        SERVICEHOLD,
        SERVICEFAIL,
    }
)
#: States in which a node's instance (and allocation) may be removed
#: by an update, outside maintenance (upstream's).
INSTANCE_REMOVAL_STATES = frozenset(
    {ENROLL, INSPECTING, INSPECTWAIT, MANAGEABLE, AVAILABLE}
)

#: States in which a ramdisk agent runs on a node, so that its lookup
#: finds the node (``[api]restrict_lookup``, as upstream's).
LOOKUP_ALLOWED_STATES = frozenset(
    {
        DEPLOYING,
        DEPLOYWAIT,
        CLEANING,
        CLEANWAIT,
        INSPECTING,
        INSPECTWAIT,
        RESCUING,
        RESCUEWAIT,
        SERVICEWAIT,
    }
)

#: ``PUT /v1/nodes/{id}/states/provision`` targets -> machine events.
ALLOWED_PROVISION_VERBS = {
    'manage': 'manage',
    'provide': 'provide',
    'inspect': 'inspect',
    'adopt': 'adopt',
    'clean': 'clean',
    'abort': 'abort',
    'unhold': 'unhold',
    'deploy': 'deploy',
    'active': 'deploy',
    'rebuild': 'rebuild',
    'rescue': 'rescue',
    'unrescue': 'unrescue',
    'deleted': 'delete',
    'undeploy': 'delete',
    'service': 'service',
}

#: The event that ends a manual cleaning (internal: not an API verb, so
#: that ``manage`` cannot move a node out of ``cleaning``).
MANUAL_CLEAN_DONE = 'manual done'

#: Every transition: (source state, event, destination state).
TRANSITIONS: tuple[tuple[str, str, str], ...] = (
    (ENROLL, 'manage', VERIFYING),
    (VERIFYING, 'done', MANAGEABLE),
    (VERIFYING, 'fail', ENROLL),
    (MANAGEABLE, 'provide', CLEANING),
    (MANAGEABLE, 'clean', CLEANING),
    (AVAILABLE, 'manage', MANAGEABLE),
    (CLEANING, 'done', AVAILABLE),
    (CLEANING, MANUAL_CLEAN_DONE, MANAGEABLE),
    (CLEANING, 'wait', CLEANWAIT),
    (CLEANING, 'fail', CLEANFAIL),
    (CLEANING, 'abort', CLEANFAIL),
    (CLEANING, 'hold', CLEANHOLD),
    (CLEANWAIT, 'resume', CLEANING),
    (CLEANWAIT, 'fail', CLEANFAIL),
    (CLEANWAIT, 'abort', CLEANFAIL),
    (CLEANWAIT, 'hold', CLEANHOLD),
    (CLEANHOLD, 'unhold', CLEANWAIT),
    (CLEANHOLD, 'abort', CLEANFAIL),
    (CLEANHOLD, 'fail', CLEANFAIL),
    (CLEANFAIL, 'manage', MANAGEABLE),
    (AVAILABLE, 'deploy', DEPLOYING),
    (DEPLOYING, 'done', ACTIVE),
    (DEPLOYING, 'wait', DEPLOYWAIT),
    (DEPLOYING, 'fail', DEPLOYFAIL),
    (DEPLOYWAIT, 'resume', DEPLOYING),
    (DEPLOYWAIT, 'fail', DEPLOYFAIL),
    # An asynchronous deploy step may be aborted (API 1.110) and the
    # node undeployed while it waits, as upstream.
    (DEPLOYWAIT, 'abort', DEPLOYFAIL),
    (DEPLOYWAIT, 'delete', DELETING),
    (DEPLOYFAIL, 'deploy', DEPLOYING),
    # Rebuild (API 1.1): deploy the instance again, as upstream from
    # active, deploy failed and error.
    (ACTIVE, 'rebuild', DEPLOYING),
    (DEPLOYFAIL, 'rebuild', DEPLOYING),
    (ERROR, 'rebuild', DEPLOYING),
    (ACTIVE, 'delete', DELETING),
    (DEPLOYFAIL, 'delete', DELETING),
    (ERROR, 'delete', DELETING),
    (DELETING, 'clean', CLEANING),
    (DELETING, 'fail', ERROR),
    # Inspection (API 1.6); an inspect interface that goes on
    # asynchronously leaves the node in "inspect wait" (1.39), which may
    # be aborted (1.41).
    (MANAGEABLE, 'inspect', INSPECTING),
    (INSPECTFAIL, 'inspect', INSPECTING),
    (INSPECTING, 'done', MANAGEABLE),
    (INSPECTING, 'fail', INSPECTFAIL),
    (INSPECTING, 'wait', INSPECTWAIT),
    (INSPECTWAIT, 'done', MANAGEABLE),
    (INSPECTWAIT, 'fail', INSPECTFAIL),
    (INSPECTWAIT, 'abort', INSPECTFAIL),
    (INSPECTWAIT, 'resume', INSPECTING),
    (INSPECTFAIL, 'manage', MANAGEABLE),
    # Adoption (API 1.17): a node already running an instance becomes
    # active without a deployment.
    (MANAGEABLE, 'adopt', ADOPTING),
    (ADOPTING, 'done', ACTIVE),
    (ADOPTING, 'fail', ADOPTFAIL),
    (ADOPTFAIL, 'adopt', ADOPTING),
    (ADOPTFAIL, 'manage', MANAGEABLE),
    # Rescue (API 1.38): an active node boots a rescue ramdisk, and back.
    (ACTIVE, 'rescue', RESCUING),
    (RESCUING, 'done', RESCUE),
    (RESCUING, 'wait', RESCUEWAIT),
    (RESCUING, 'fail', RESCUEFAIL),
    (RESCUEWAIT, 'resume', RESCUING),
    (RESCUEWAIT, 'fail', RESCUEFAIL),
    (RESCUEWAIT, 'abort', RESCUEFAIL),
    (RESCUE, 'rescue', RESCUING),
    (RESCUE, 'unrescue', UNRESCUING),
    (RESCUE, 'delete', DELETING),
    (RESCUEFAIL, 'rescue', RESCUING),
    (RESCUEFAIL, 'unrescue', UNRESCUING),
    (RESCUEFAIL, 'delete', DELETING),
    (UNRESCUING, 'done', ACTIVE),
    (UNRESCUING, 'fail', UNRESCUEFAIL),
    (UNRESCUEFAIL, 'rescue', RESCUING),
    (UNRESCUEFAIL, 'unrescue', UNRESCUING),
    (UNRESCUEFAIL, 'delete', DELETING),
    # Servicing (API 1.87): steps run on an active node, which stays
    # active once they are done.
    (ACTIVE, 'service', SERVICING),
    (SERVICING, 'done', ACTIVE),
    (SERVICING, 'fail', SERVICEFAIL),
    (SERVICING, 'wait', SERVICEWAIT),
    (SERVICING, 'hold', SERVICEHOLD),
    (SERVICEWAIT, 'hold', SERVICEHOLD),
    (SERVICEWAIT, 'resume', SERVICING),
    (SERVICEWAIT, 'fail', SERVICEFAIL),
    (SERVICEWAIT, 'abort', SERVICEFAIL),
    (SERVICEWAIT, 'delete', DELETING),
    (SERVICEHOLD, 'service', SERVICING),
    (SERVICEHOLD, 'unhold', SERVICEWAIT),
    (SERVICEHOLD, 'fail', SERVICEFAIL),
    (SERVICEHOLD, 'abort', SERVICEFAIL),
    (SERVICEFAIL, 'service', SERVICING),
    (SERVICEFAIL, 'rescue', RESCUING),
    (SERVICEFAIL, 'wait', SERVICEWAIT),
    (SERVICEFAIL, 'hold', SERVICEHOLD),
    (SERVICEFAIL, 'delete', DELETING),
    (SERVICEFAIL, 'abort', ACTIVE),
)

ALL_STATES = frozenset(
    state for src, _event, dst in TRANSITIONS for state in (src, dst)
)


def _build_machine() -> machines.FiniteMachine:
    fsm = machines.FiniteMachine()
    for state in sorted(ALL_STATES):
        fsm.add_state(state)
    for src, event, dst in TRANSITIONS:
        fsm.add_transition(src, dst, event)
    fsm.default_start_state = ENROLL
    fsm.freeze()
    return fsm


_MACHINE = _build_machine()


def machine(initial_state: str = ENROLL) -> machines.FiniteMachine:
    """A fresh machine, initialized to ``initial_state``.

    The copy shares the frozen transition table, so it is cheap; it
    raises :class:`automaton.exceptions.NotFound` on an event that has
    no transition from the current state.
    """
    fsm = _MACHINE.copy(shallow=True)
    fsm.initialize(initial_state)
    return fsm


def has_transition(state: str, event: str) -> bool:
    """Whether ``event`` leads anywhere from ``state``."""
    return bool(machine(state).is_actionable_event(event))


def next_state(state: str, event: str, node: str = '') -> str:
    """The state ``event`` leads to from ``state``.

    :raises InvalidStateRequested: the transition does not exist.
    """
    fsm = machine(state)
    if not fsm.is_actionable_event(event):
        raise exception.InvalidStateRequested(
            action=event, node=node, state=state
        )
    fsm.process_event(event)
    return str(fsm.current_state)


def clean_done_event(target_provision_state: str | None) -> str:
    """The event that ends cleaning aimed at ``target_provision_state``.

    ``done`` leads to ``available`` (automated cleaning),
    :data:`MANUAL_CLEAN_DONE` to ``manageable`` (manual cleaning).
    """
    if target_provision_state == MANAGEABLE:
        return MANUAL_CLEAN_DONE
    if target_provision_state == AVAILABLE:
        return 'done'
    raise exception.InvalidState(
        reason=f'cleaning cannot end in {target_provision_state!r}'
    )


def power_action_allowed(provision_state: str | None) -> bool:
    """Whether a power change may happen in ``provision_state``."""
    return provision_state not in POWER_LOCKED_STATES
