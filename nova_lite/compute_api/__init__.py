"""The Compute API's domain rules (run by nova-lite-api only): the
preconditions, records and casts of each server action and resource,
called by the HTTP handlers of :mod:`nova_lite.api`; nothing here knows
HTTP."""
