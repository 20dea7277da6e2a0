"""nova_lite versioned objects.

:func:`register_all` imports every object module so that the registry
knows them; it is called by the services, not at import time.
"""


def register_all() -> None:
    from nova_lite.objects import compute_node  # noqa: F401
    from nova_lite.objects import flavor  # noqa: F401
    from nova_lite.objects import instance  # noqa: F401
    from nova_lite.objects import instance_action  # noqa: F401
    from nova_lite.objects import migration  # noqa: F401
    from nova_lite.objects import service  # noqa: F401
