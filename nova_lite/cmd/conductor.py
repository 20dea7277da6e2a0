"""nova-lite-conductor: scheduling, builds and object calls."""

import sys

from lite_common import service as lite_service
from lite_common.metrics import db_pool
from lite_common.metrics import listener
from nova_lite import metrics as nova_metrics
from nova_lite.cmd import common
from nova_lite.conductor import service as conductor_svc
from nova_lite.db import api as db_api


def main() -> int:
    conf = common.load_config(sys.argv[1:], 'nova-lite-conductor')

    def body() -> int:
        db_api.configure(conf)
        db_api.get_engine().connect().close()
        launcher = lite_service.Launcher()
        launcher.add(conductor_svc.conductor_service(conf))
        metrics = listener.listener(conf)
        if metrics is not None:
            nova_metrics.register_process()
            db_pool.track('nova_lite', db_api.get_engine)
            launcher.add(metrics)
        return launcher.run()

    return common.run_daemon('nova-lite-conductor', body)
