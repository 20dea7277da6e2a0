"""What a caller may see of images and flavors, in one place: the show
handlers answer 404 for anything else, and create and resize answer 400
as for something that does not exist (as upstream), so that a server
cannot be built from what its owner may not see."""

from typing import Any

from lite_common import context as lite_context
from nova_lite.db import flavors as flavor_db


def image_visible(
    ctx: lite_context.RequestContext, image: dict[str, Any]
) -> bool:
    """Admins see every image; others public, shared and community
    images and the private images of their own project."""
    return (
        ctx.is_admin
        or image['visibility'] != 'private'
        or image['owner'] == ctx.project_id
    )


def flavor_visible(
    ctx: lite_context.RequestContext, flavor: dict[str, Any]
) -> bool:
    """Admins see every flavor; others the public ones and the private
    ones their project was given access to (os-flavor-access)."""
    return bool(
        ctx.is_admin
        or flavor['is_public']
        or flavor_db.has_access(ctx, flavor['id'], ctx.project_id)
    )
