"""Selects the oslo.service threading backend.

Every console script calls :func:`select_threading` before anything
imports ``oslo_messaging``: the design uses native threads only (no
eventlet, no monkey patching).
"""

import warnings

from oslo_service import backend


def select_threading() -> None:
    """Select the threading backend; a no-op when already selected.

    futurist probes for eventlet by importing it when it is installed
    (oslo.service still depends on it); that import warns about
    eventlet's deprecation, which says nothing about this service.
    """
    warnings.filterwarnings('ignore', message=r'\s*Eventlet is deprecated')
    backend.init_backend(backend.BackendType.THREADING)
