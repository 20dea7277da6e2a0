"""Inspection rules (API 1.96): conditions checked on the data an
inspection found, and actions run on the node when they all hold.

A rule is a plain dict, the fields of ``POST /v1/inspection_rules``::

    {"uuid": ..., "priority": 50, "description": ..., "sensitive": False,
     "phase": "main",
     "conditions": [{"op": "contains", "args": {"value":
                     "{inventory[system_vendor][manufacturer]}",
                     "regex": "(?i)dell"}}],
     "actions": [{"op": "set-attribute", "args": {"path": "/driver",
                  "value": "idrac"}}]}

The modules, as upstream Ironic 39's ``ironic.common.inspection_rules``:

:mod:`.base`
    what conditions and actions share: named arguments (the deprecated
    list form maps onto them in order), the ``{inventory[...]}`` /
    ``{plugin_data[...]}`` / ``{node.field}`` formatting of string
    arguments, the masked views of the data, the exceptions;
:mod:`.operators`
    the condition operators, ``loop`` and ``multiple``, ``!op``;
:mod:`.actions`
    the actions, ``loop``;
:mod:`.paths`
    changing a value at a path of a node, a port or the plugin data
    (the attribute actions);
:mod:`.validation`
    :func:`~.validation.validate_rule` and the JSON schema of a rule
    (:data:`~.validation.RULE_SCHEMA`, the API validates bodies with it);
:mod:`.engine`
    :func:`~.engine.apply_rules` (run by the inspection flow, lock
    held) and :func:`~.engine.load_built_in_rules` (the YAML file of
    ``[inspection_rules]built_in_rules``).

Storing rules and serving them through the API is not done here.
"""
