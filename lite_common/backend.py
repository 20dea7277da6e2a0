"""Selects the oslo.service threading backend.

Every console script calls :func:`select_threading` before anything
imports ``oslo_messaging``: the design uses native threads only (no
eventlet, no monkey patching).
"""

import sys
import warnings

from oslo_service import backend


def select_threading() -> None:
    """Select the threading backend; a no-op when already selected.

    eventlet stays installed (oslo.service still depends on it), but
    nothing here may use it: futurist, oslo.utils and oslo.messaging
    probe for it with ``import eventlet`` and take the native-thread
    path when that fails, so it is made to fail. That also saves the
    tenth of a second its import costs every daemon at start-up. (Should
    something have imported it already, it is left as it is.)
    """
    if 'eventlet' not in sys.modules:
        sys.modules['eventlet'] = None  # type: ignore[assignment]
    warnings.filterwarnings('ignore', message=r'\s*Eventlet is deprecated')
    backend.init_backend(backend.BackendType.THREADING)
