"""nova-lite-compute: the agent on one hypervisor host.

It has no database configuration (no ``[database]`` options): every
object call goes to the conductor over RPC, and it imports neither the
database layer nor oslo.db and SQLAlchemy (see
nova_lite/tests/unit/test_agent_has_no_database.py). It refuses to
start (exit 78) when its identity checks fail, and (exit 1) while
another live process holds its host name; it stops (exit 78) when it
finds that another process took its host name over (see
nova_lite/compute/holder.py).
"""

import sys

from lite_common import service as lite_service
from lite_common.metrics import listener
from nova_lite import metrics as nova_metrics
from nova_lite.cmd import common
from nova_lite.cmd.common import EXIT_REFUSED
from nova_lite.compute import service as compute_svc
from nova_lite.conductor import rpcapi as conductor_rpcapi
from nova_lite.objects import base as objects_base


def main() -> int:
    conf = common.load_config(
        sys.argv[1:], 'nova-lite-compute', database=False
    )

    def body() -> int:
        objects_base.set_default_indirection(
            conductor_rpcapi.ObjectIndirectionAPI(conf)
        )
        launcher = lite_service.Launcher()
        launcher.add(
            compute_svc.compute_service(
                conf,
                conf.host,
                conf.state_path,
                on_replaced=lambda: launcher.request_stop(EXIT_REFUSED),
            )
        )
        metrics = listener.listener(conf)
        if metrics is not None:
            nova_metrics.register_process()
            launcher.add(metrics)
        return launcher.run()

    return common.run_daemon('nova-lite-compute', body)
