"""nova_lite policy defaults, for the enforcer and the generators."""

import itertools

from oslo_policy import policy

from nova_lite.policies import aggregates
from nova_lite.policies import base
from nova_lite.policies import consoles_shares
from nova_lite.policies import keypairs
from nova_lite.policies import resources
from nova_lite.policies import server_actions
from nova_lite.policies import server_extras
from nova_lite.policies import server_groups


def list_rules() -> list[policy.RuleDefault]:
    return list(
        itertools.chain(
            base.rules,
            resources.servers,
            resources.flavors,
            resources.admin_apis,
            resources.quotas,
            resources.images,
            resources.availability_zones,
            resources.usage,
            server_actions.rules,
            server_extras.rules,
            keypairs.rules,
            aggregates.rules,
            server_groups.rules,
            consoles_shares.rules,
        )
    )
