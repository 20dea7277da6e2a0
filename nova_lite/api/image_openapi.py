"""The OpenAPI document of the Image API v2 subset under ``/image``
(Glance's paths; no microversions), from its route table, request
schemas and success bodies; ``python -m nova_lite.api.image_openapi``
prints it; it is served at ``/image/openapi.json`` and checked into
``doc/source/api/openapi/image.json``.

Three operations take or give other media types than JSON, as Glance's:
a PATCH is a JSON patch (``application/openstack-images-v2.1-json-patch``),
the upload and the download of an image's data are
``application/octet-stream``.
"""

from typing import Any

from lite_common.wsgi import openapi
from nova_lite.api.handlers import image_data
from nova_lite.api.handlers import images
from nova_lite.api.schemas import images as schema
from nova_lite.api.schemas.responses import images as answers

PATH = '/image/openapi.json'
#: Glance's newest minor version (the version document lists v2.0 to
#: v2.9).
VERSION = '2.9'

#: ``{code, title, message}`` (as Glance renders webob errors).
ERROR_SCHEMA: dict[str, Any] = {
    'type': 'object',
    'properties': {
        'code': {'type': 'integer'},
        'title': {'type': 'string'},
        'message': {'type': 'string'},
    },
    'required': ['code', 'title', 'message'],
}

_TEXT: dict[str, Any] = {'type': 'string'}
_BINARY: dict[str, Any] = {'type': 'string', 'format': 'binary'}
_SCHEMA: dict[str, Any] = {
    'type': 'object',
    'required': ['name', 'properties', 'links'],
}
_LIST_QUERY: dict[str, dict[str, Any]] = {
    'limit': {'type': 'integer', 'minimum': 0, 'maximum': 2**31 - 1},
    'marker': _TEXT,
    'name': _TEXT,
    'status': _TEXT,
    'owner': _TEXT,
    'visibility': {'type': 'string', 'enum': [*schema.VISIBILITIES, 'all']},
    'os_hidden': {'type': 'string', 'description': 'a boolean'},
}


def bodies() -> openapi.Bodies:
    return {
        images.create_image: schema.image,
        images.update_image: schema.patch,
        image_data.upload: _BINARY,
    }


def descriptions() -> openapi.Descriptions:
    def answers_with(
        responses: dict[int, Any], query: dict[str, Any] | None = None
    ) -> openapi.Described:
        return openapi.Described(query=query or {}, responses=responses)

    return {
        images.image_versions: answers_with({300: answers.VERSIONS}),
        images.list_images: answers_with({200: answers.IMAGES}, _LIST_QUERY),
        images.create_image: answers_with({201: answers.IMAGE}),
        images.show_image: answers_with({200: answers.IMAGE}),
        images.update_image: answers_with({200: answers.IMAGE}),
        images.delete_image: answers_with({204: None}),
        image_data.upload: answers_with({204: None}),
        image_data.download: answers_with(
            {200: _BINARY, 204: None, 206: _BINARY}
        ),
        images.show_image_schema: answers_with({200: _SCHEMA}),
        images.show_images_schema: answers_with({200: _SCHEMA}),
        images.show_openapi: answers_with(
            {200: {'type': 'object', 'required': ['openapi', 'paths']}}
        ),
    }


#: Operations (``'GET /path'``) of the image document not described
#: yet: none.
NOT_YET_DESCRIBED: frozenset[str] = frozenset()

PATCH_MEDIA_TYPE = images.PATCH_TYPES[0]
_MEDIA_TYPES = {
    'images.update_image': PATCH_MEDIA_TYPE,
    'image_data.upload': 'application/octet-stream',
}
#: Answers that are not JSON: the operation -> their media type.
_ANSWER_MEDIA_TYPES = {'image_data.download': 'application/octet-stream'}


def _media_types(doc: dict[str, Any]) -> None:
    """The request bodies that are not JSON, under their media type."""
    for item in doc['paths'].values():
        for operation in item.values():
            if not isinstance(operation, dict):
                continue  # the path parameters
            media = _MEDIA_TYPES.get(operation['operationId'])
            if media:
                content = operation['requestBody']['content']
                content[media] = content.pop('application/json')
            media = _ANSWER_MEDIA_TYPES.get(operation['operationId'])
            for status, answer in operation['responses'].items():
                if media and status.isdigit() and 'content' in answer:
                    answer['content'] = {
                        media: answer['content']['application/json']
                    }


def document() -> dict[str, Any]:
    from nova_lite.api import routes

    doc = openapi.document(
        'nova_lite Image API',
        VERSION,
        routes.IMAGE_ROUTES,
        bodies(),
        ERROR_SCHEMA,
        descriptions=descriptions(),
    )
    _media_types(doc)
    return doc


def error_format_ok(body: Any) -> bool:
    """Whether ``body`` is an error in the Image API's format."""
    return (
        isinstance(body, dict)
        and isinstance(body.get('code'), int)
        and isinstance(body.get('title'), str)
        and isinstance(body.get('message'), str)
    )


if __name__ == '__main__':
    print(openapi.dumps(document()), end='')
