"""The WSGI module builds a working application from its config files.

It configures the process-wide ``cfg.CONF`` when imported, so it is
imported in a child process here.
"""

import json
import os
from pathlib import Path
import subprocess
import sys

SCRIPT = """
import json, sys, webob
from nova_lite.db import api as db_api
from nova_lite.db import migration
import nova_lite.api.wsgi as wsgi
migration.db_sync(db_api.get_engine())
resp = webob.Request.blank('/v2.1/flavors').get_response(wsgi.application)
print(json.dumps({'status': resp.status_int, 'body': resp.json}))
"""


def test_wsgi_module_reads_its_config_files(tmp_path: Path) -> None:
    conf = tmp_path / 'api.conf'
    conf.write_text(
        '[DEFAULT]\nauth_strategy = noauth\n'
        'transport_url = inproc://\n'
        '[database]\n'
        f'connection = sqlite:///{tmp_path}/nova.sqlite\n'
    )
    env = dict(os.environ, NOVA_LITE_CONFIG_FILES=str(conf))
    proc = subprocess.run(
        [sys.executable, '-c', SCRIPT],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    result = json.loads(proc.stdout.strip().splitlines()[-1])
    assert result == {'status': 200, 'body': {'flavors': []}}
