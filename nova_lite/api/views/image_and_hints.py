"""Two additions to the server view (show, detail, update, rebuild):

* 2.98: ``image.properties``, the standard properties of the server's
  copy of its image's metadata (compute_api/image_meta.py); a server without
  an image (``"image": ""``) has none to show;
* 2.100: ``scheduler_hints``, as given at create (compute/
  scheduler_hints.py); ``{}`` for a server from before they were kept.

Both come from the instance row itself: rendering a list needs no query
per server.
"""

from typing import Any

from lite_common.wsgi.microversion import APIVersion
from nova_lite.api import microversion as mv
from nova_lite.compute_api import image_meta


class ImageAndHints:
    def __init__(self, version: APIVersion) -> None:
        self.image_properties = version.at_least(mv.IMAGE_PROPERTIES)
        self.scheduler_hints = version.at_least(mv.SCHEDULER_HINTS)

    def add(self, body: dict[str, Any], inst: dict[str, Any]) -> None:
        if self.image_properties and isinstance(body.get('image'), dict):
            body['image']['properties'] = image_meta.shown(
                inst.get('system_metadata')
            )
        if self.scheduler_hints:
            body['scheduler_hints'] = inst.get('scheduler_hints') or {}
