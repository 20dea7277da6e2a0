"""The attributes of each resource, as neutron-lib's attribute maps
describe them: whether a create or an update may set it, how a value is
converted and checked, its default, who may read or write it (policy).

:func:`parse` turns a request body into checked values with Neutron's
messages (``Invalid input for <attr>. Reason: ...``, ``Unrecognized
attribute(s) ...``, ``Cannot update read-only attribute ...``), all
400s of type ``HTTPBadRequest``.
"""

from collections.abc import Callable
import dataclasses
from typing import Any

from oslo_utils import strutils

from neutron_lite import exception

Convert = Callable[[Any], Any]
#: A value used when a create leaves the attribute out.
NO_DEFAULT = object()


class Invalid(ValueError):
    """A value an attribute's validator refuses; the text is the reason
    (``Invalid input for <attr>. Reason: <text>.``, HTTPBadRequest)."""


class Unconvertible(ValueError):
    """A value that cannot be converted to the attribute's type
    (``Invalid input for operation: <text>.``, InvalidInput)."""


@dataclasses.dataclass(frozen=True)
class Attribute:
    name: str
    allow_post: bool = False
    allow_put: bool = False
    convert: Convert | None = None
    default: Any = NO_DEFAULT
    #: Setting it needs the policy ``<action>:<name>`` (admin by
    #: default); reading it too when ``admin_read``.
    enforce_policy: bool = False
    admin_read: bool = False
    #: Required on create (no default).
    required: bool = False


def to_boolean(value: Any) -> bool:
    if isinstance(value, bool):
        return value
    if isinstance(value, str | int):
        try:
            return strutils.bool_from_string(value, strict=True)
        except ValueError:
            pass
    raise Unconvertible(f"'{value}' cannot be converted to boolean")


def string(limit: int) -> Convert:
    def convert(value: Any) -> str:
        if not isinstance(value, str):
            raise Invalid(f"'{value}' is not a valid string")
        if len(value) > limit:
            raise Invalid(f"'{value}' exceeds maximum length of {limit}")
        return value

    return convert


def optional_string(limit: int) -> Convert:
    inner = string(limit)

    def convert(value: Any) -> str | None:
        return None if value is None else inner(value)

    return convert


def to_int(low: int | None = None, high: int | None = None) -> Convert:
    def convert(value: Any) -> int:
        if isinstance(value, bool):
            raise Unconvertible(f"'{value}' is not an integer")
        try:
            number = int(value)
        except (TypeError, ValueError):
            raise Unconvertible(f"'{value}' is not an integer") from None
        if (low is not None and number < low) or (
            high is not None and number > high
        ):
            raise Invalid(f"'{number}' is not in range {low} through {high}")
        return number

    return convert


def to_list(item: Convert) -> Convert:
    def convert(value: Any) -> list[Any]:
        if not isinstance(value, list):
            raise Invalid(f"'{value}' is not a list")
        return [item(v) for v in value]

    return convert


def to_dict(value: Any) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise Invalid(f"'{value}' is not a dictionary")
    return value


def one_of(*choices: Any) -> Convert:
    def convert(value: Any) -> Any:
        if value not in choices:
            raise Invalid(f'{value} is not in valid_values')
        return value

    return convert


def uuid_string(value: Any) -> str:
    import uuid

    try:
        return str(uuid.UUID(str(value)))
    except ValueError:
        raise Invalid(f"'{value}' is not a valid UUID") from None


def bad_request(message: str) -> exception.HTTPBadRequest:
    return exception.HTTPBadRequest(msg=message)


def parse(
    resource: str,
    attributes: dict[str, Attribute],
    body: Any,
    create: bool,
) -> dict[str, Any]:
    """The values of ``body[resource]`` (the singular), converted; on
    create, with the defaults of the attributes left out.

    :raises BadRequest: with Neutron's message.
    """
    if not isinstance(body, dict) or not body:
        raise bad_request('Resource body required')
    if resource not in body:
        raise bad_request(f"Unable to find '{resource}' in request body")
    given = body[resource]
    if not isinstance(given, dict):
        raise bad_request(f"Unable to find '{resource}' in request body")
    unknown = sorted(k for k in given if k not in attributes)
    if unknown:
        raise bad_request(
            "Unrecognized attribute(s) '" + ', '.join(unknown) + "'"
        )
    values: dict[str, Any] = {}
    for name, value in given.items():
        attribute = attributes[name]
        allowed = attribute.allow_post if create else attribute.allow_put
        if not allowed:
            raise bad_request(
                f"Attribute '{name}' not allowed in POST"
                if create
                else f'Cannot update read-only attribute {name}'
            )
        values[name] = _converted(attribute, value)
    if create:
        for name, attribute in attributes.items():
            if name in values or not attribute.allow_post:
                continue
            if attribute.required:
                raise bad_request(
                    f"Failed to parse request. Required attribute '{name}' "
                    'not specified'
                )
            if attribute.default is not NO_DEFAULT:
                values[name] = attribute.default
    return values


def _converted(attribute: Attribute, value: Any) -> Any:
    if attribute.convert is None:
        return value
    try:
        return attribute.convert(value)
    except Unconvertible as exc:
        raise exception.InvalidInput(error_message=str(exc)) from None
    except Invalid as exc:
        raise bad_request(
            f'Invalid input for {attribute.name}. Reason: {exc}.'
        ) from None


def mac_address(value: Any) -> str:
    text = str(value).lower() if isinstance(value, str) else ''
    parts = text.split(':')
    valid = len(parts) == 6 and all(
        len(p) == 2 and all(c in '0123456789abcdef' for c in p) for p in parts
    )
    if not valid or int(parts[0], 16) & 1 or text == '00:00:00:00:00:00':
        raise Invalid(f"'{value}' is not a valid MAC address")
    return text


def optional_int(value: Any) -> int | None:
    return None if value is None else to_int()(value)


def optional_uuid(value: Any) -> str | None:
    return None if value is None else uuid_string(value)
