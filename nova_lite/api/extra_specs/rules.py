"""What a known extra spec looks like: its name (with ``{parameter}``
placeholders, each a regular expression) and the values it takes."""

import dataclasses
import re

from oslo_utils import strutils

from nova_lite import exception

#: A request group suffix of ``resources`` / ``trait`` (granular
#: requests: ``resources1:VCPU``, ``trait_gpu:HW_GPU_API_VULKAN``).
GROUP = r'([a-zA-Z0-9_-]{1,64})?'

#: A guest CPU map: ``0-3,^2,5``.
CPU_MAP = r'\^?\d+((-\d+)?(,\^?\d+(-\d+)?)?)*'


def _fail(text: str) -> exception.Invalid:
    return exception.Invalid(f'Validation failed; {text}')


@dataclasses.dataclass(frozen=True)
class Value:
    """The values an extra spec takes: ``kind`` is ``str`` (any text,
    one of ``enum``, or text matching ``pattern`` whole), ``int``
    (within ``low`` / ``high`` when given) or ``bool`` (a boolean-like
    string)."""

    kind: type = str
    enum: tuple[str, ...] = ()
    pattern: str | None = None
    low: int | None = None
    high: int | None = None

    def check(self, value: str) -> None:
        if self.kind is int:
            self._check_int(value)
        elif self.kind is bool:
            try:
                strutils.bool_from_string(value, strict=True)
            except ValueError:
                raise _fail(
                    f"'{value}' is not a valid boolean-like value."
                ) from None
        elif self.pattern is not None:
            if not re.fullmatch(self.pattern, value):
                raise _fail(
                    f"'{value}' is not of the format '{self.pattern}'."
                )
        elif self.enum and value not in self.enum:
            raise _fail(f"'{value}' is not one of: {', '.join(self.enum)}.")

    def _check_int(self, value: str) -> None:
        try:
            number = int(value)
        except ValueError:
            raise _fail(f"'{value}' is not a valid integer value.") from None
        if self.high is not None and number > self.high:
            raise _fail(
                f"'{value}' is greater than the max value of '{self.high}'."
            )
        if self.low is not None and number < self.low:
            raise _fail(
                f"'{value}' is less than the min value of '{self.low}'."
            )


ANY = Value()
BOOL = Value(bool)
INT = Value(int)
COUNT = Value(int, low=0)
POSITIVE = Value(int, low=1)


def enum(*values: str) -> Value:
    return Value(enum=values)


def pattern(regex: str) -> Value:
    return Value(pattern=regex)


@dataclasses.dataclass(frozen=True)
class Spec:
    """One known extra spec (or a family of them, with parameters)."""

    name: str
    value: Value
    parameters: tuple[tuple[str, str], ...] = ()

    @property
    def name_regex(self) -> str:
        regex = self.name
        for param, param_regex in self.parameters:
            regex = regex.replace(
                f'{{{param}}}', f'(?P<{param}>{param_regex})'
            )
        return regex

    @property
    def namespace(self) -> str | None:
        """The regular expression of its namespace (what comes before
        the first ``:``), None for a spec without one."""
        regex = self.name_regex
        return regex.split(':', 1)[0] if ':' in regex else None
