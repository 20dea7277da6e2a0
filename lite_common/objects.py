"""Versioned-object base pieces shared by the service families."""

from typing import Any

from oslo_versionedobjects import base as ovo_base
from oslo_versionedobjects import fields


class TimestampedObject:
    """Adds created_at/updated_at, as the database rows carry them."""

    fields = {
        'created_at': fields.DateTimeField(nullable=True),
        'updated_at': fields.DateTimeField(nullable=True),
    }


def fill_from_row(obj: Any, row: Any, context: Any = None) -> Any:
    """Copy every field of ``obj`` from a row (an ORM object or mapping).

    Naive datetimes from the database are marked UTC by the field
    coercion, so objects always carry aware timestamps.
    """
    get = row.get if isinstance(row, dict) else (
        lambda name: getattr(row, name))
    for name in obj.fields:
        value = get(name)
        setattr(obj, name, value)
    obj._context = context
    obj.obj_reset_changes()
    return obj


def fingerprints(registry: Any, namespace: str) -> dict[str, str]:
    """name -> 'version-hash' for every registered object, for tests."""
    from oslo_versionedobjects import fixture

    checker = fixture.ObjectVersionChecker(registry.obj_classes())
    return checker.get_hashes()


__all__ = ['TimestampedObject', 'fill_from_row', 'fingerprints', 'ovo_base']
