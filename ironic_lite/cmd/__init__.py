"""Console scripts of ironic_lite.

Importing this package selects the oslo.service threading backend
before any console script imports oslo_messaging (the design uses
native threads: no eventlet, no monkey patching).
"""

from lite_common import backend

backend.select_threading()
