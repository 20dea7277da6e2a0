"""Fixtures of the ironic_lite integration tests: real processes, real
clients (``openstack baremetal``), RabbitMQ and MariaDB.

Every test here is marked ``integration``; a failure carries the tails
of the deployment's service logs.
"""

from lite_common.tests import integration

# The shared hooks, registered by being names of this conftest.
pytest_collection_modifyitems = integration.pytest_collection_modifyitems
pytest_runtest_makereport = integration.pytest_runtest_makereport
