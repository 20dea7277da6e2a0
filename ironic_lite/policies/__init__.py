"""ironic_lite policy defaults, for the enforcer and the generators."""

import itertools

from oslo_policy import policy

from ironic_lite.policies import allocation
from ironic_lite.policies import base
from ironic_lite.policies import chassis
from ironic_lite.policies import conductor
from ironic_lite.policies import deploy_template
from ironic_lite.policies import driver
from ironic_lite.policies import event
from ironic_lite.policies import indicator
from ironic_lite.policies import inspection_rule
from ironic_lite.policies import node
from ironic_lite.policies import node_history
from ironic_lite.policies import port
from ironic_lite.policies import portgroup
from ironic_lite.policies import runbook
from ironic_lite.policies import volume


def list_rules() -> list[policy.RuleDefault]:
    return list(
        itertools.chain(
            base.rules,
            node.rules,
            driver.rules,
            volume.rules,
            node_history.rules,
            event.rules,
            indicator.rules,
            conductor.rules,
            chassis.rules,
            port.rules,
            portgroup.rules,
            allocation.rules,
            deploy_template.rules,
            runbook.rules,
            inspection_rule.rules,
        )
    )
