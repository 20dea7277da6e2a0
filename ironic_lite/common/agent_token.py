"""The agent token and URL a node keeps in ``driver_internal_info``,
and when they are forgotten (no imports of the conductor: every flow
uses these)."""

import secrets
from typing import Any

TOKEN_KEY = 'agent_secret_token'
PREGENERATED_KEY = 'agent_secret_token_pregenerated'
#: When the token was made for a lookup (see ramdisk.get_node_with_token).
ISSUED_KEY = 'agent_secret_token_issued_at'
URL_KEY = 'agent_url'
VERIFY_CA_KEY = 'agent_verify_ca'
MASK = '******'
#: The agent version assumed when a heartbeat names none (upstream's:
#: the last agent release before agents sent theirs).
DEFAULT_AGENT_VERSION = '3.0.0'


def wipe_token_and_url(info: dict[str, Any]) -> None:
    """Forget the agent of a flow that ended (the caller saves)."""
    for key in (
        TOKEN_KEY,
        ISSUED_KEY,
        PREGENERATED_KEY,
        URL_KEY,
        VERIFY_CA_KEY,
    ):
        info.pop(key, None)


def wipe_on_power_off(info: dict[str, Any]) -> None:
    """Forget what does not survive a power off: the agent's URL and
    certificate, and its token unless it was made before the boot (and
    handed to the machine another way)."""
    for key in (
        URL_KEY,
        VERIFY_CA_KEY,
        'agent_cached_clean_steps',
        'agent_cached_deploy_steps',
    ):
        info.pop(key, None)
    if not info.get(PREGENERATED_KEY):
        info.pop(TOKEN_KEY, None)
        info.pop(ISSUED_KEY, None)


def is_valid(info: dict[str, Any], token: str | None) -> bool:
    known = info.get(TOKEN_KEY)
    return (
        token is not None
        and known is not None
        and secrets.compare_digest(str(known), str(token))
    )
