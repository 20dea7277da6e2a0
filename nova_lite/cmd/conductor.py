"""nova-lite-conductor: scheduling, builds and object calls."""

import sys

from lite_common import service as lite_service
from nova_lite import service
from nova_lite.cmd import common
from nova_lite.db import api as db_api


def main() -> int:
    conf = common.load_config(sys.argv[1:], 'nova-lite-conductor')

    def body() -> int:
        db_api.configure(conf)
        db_api.get_engine().connect().close()
        launcher = lite_service.Launcher()
        launcher.add(service.conductor_service(conf))
        return launcher.run()

    return common.run_daemon('nova-lite-conductor', body)
