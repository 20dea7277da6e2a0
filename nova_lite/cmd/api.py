"""nova-lite-api: the Compute API (and the image catalog) on waitress."""

import sys

from lite_common import service as lite_service
from nova_lite.api import service as api_svc
from nova_lite.cmd import common
from nova_lite.db import api as db_api


def main() -> int:
    conf = common.load_config(sys.argv[1:], 'nova-lite-api')

    def body() -> int:
        db_api.configure(conf)
        launcher = lite_service.Launcher()
        launcher.add(api_svc.api_server(conf))
        return launcher.run()

    return common.run_daemon('nova-lite-api', body)
