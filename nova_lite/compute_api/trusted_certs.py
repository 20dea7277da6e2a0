"""Trusted image certificate ids of an instance (2.63).

Kept as a JSON list in the instance's system_metadata. nova_lite
downloads no image, so the ids are stored and shown, never used to
verify a signature; upstream's defaults
(``[glance]default_trusted_certificate_ids``) do not exist here, so an
instance created without ids has none (``null``).
"""

import json
from typing import Any

KEY = 'trusted_image_certificates'


def kept(
    system_metadata: dict[str, Any], certs: list[str] | None
) -> dict[str, Any]:
    """``system_metadata`` keeping ``certs`` (none: the key removed)."""
    result = {k: v for k, v in system_metadata.items() if k != KEY}
    if certs:
        result[KEY] = json.dumps(certs)
    return result


def shown(system_metadata: dict[str, Any] | None) -> list[str] | None:
    """The ids as the API shows them (None without any)."""
    text = (system_metadata or {}).get(KEY)
    return json.loads(text) if text else None
