"""Runs the object calls that compute agents send to the conductor."""

from typing import Any

from oslo_versionedobjects import base as ovo_base

from lite_common.context import RequestContext
from nova_lite.objects import base


def _backport(result: Any, object_versions: dict[str, str]) -> Any:
    if isinstance(result, ovo_base.VersionedObject):
        return result.obj_to_primitive(
            target_version=object_versions[result.obj_name()],
            version_manifest=object_versions,
        )
    return result


def class_action(
    context: RequestContext,
    objname: str,
    objmethod: str,
    object_versions: dict[str, str],
    args: Any,
    kwargs: Any,
) -> Any:
    """A classmethod (a lookup) run here, with database access."""
    objclass = base.NovaLiteObject.obj_class_from_name(
        objname, object_versions[objname]
    )
    result = getattr(objclass, objmethod)(context, *args, **kwargs)
    return _backport(result, object_versions)


def instance_action(
    context: RequestContext,
    objinst: Any,
    objmethod: str,
    args: Any,
    kwargs: Any,
) -> tuple[dict[str, Any], Any]:
    """A method of an object run here; returns (field updates, result)."""
    before = objinst.obj_clone()
    result = getattr(objinst, objmethod)(*args, **kwargs)
    updates: dict[str, Any] = {}
    for name, field in objinst.fields.items():
        if not objinst.obj_attr_is_set(name):
            continue
        if not before.obj_attr_is_set(name) or getattr(
            before, name
        ) != getattr(objinst, name):
            updates[name] = field.to_primitive(
                objinst, name, getattr(objinst, name)
            )
    updates['obj_what_changed'] = objinst.obj_what_changed()
    return updates, result
