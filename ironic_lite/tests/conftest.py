"""Test-wide setup: the threading backend before anything imports
oslo_messaging, as every console script does."""

from lite_common import backend

backend.select_threading()
