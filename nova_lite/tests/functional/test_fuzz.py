"""Fuzz the Compute API from its OpenAPI document (schemathesis, fixed
seed, bounded): no 5xx, errors in the Compute format, no traceback or
SQL in any body. As an admin (noauth) and as a member (http_basic).

A longer run: ``python -m nova_lite.tests.functional.test_fuzz
--examples 500 --seed 7``.
"""

import os
import sys

import pytest

from lite_common import backend

# Before anything imports oslo.service (run as a script, too).
backend.select_threading()

from lite_common.tests import fuzz  # noqa: E402
from nova_lite.api import openapi  # noqa: E402
from nova_lite.tests import stack as nova_stack  # noqa: E402
from nova_lite.tests.functional import fixtures  # noqa: E402

SEED = int(os.environ.get('STACKLITE_FUZZ_SEED', '1400'))
LATEST = {'OpenStack-API-Version': 'compute latest'}
# demo:demo-secret, a member of its own project.
MEMBER = {**LATEST, 'Authorization': 'Basic ZGVtbzpkZW1vLXNlY3JldA=='}


def run(auth: str, headers: dict[str, str], examples: int,
        seed: int) -> fuzz.Report:
    htpasswd = fixtures.write_htpasswd() if auth == 'http_basic' else None
    stack = nova_stack.Stack(auth=auth, htpasswd=htpasswd).start()
    try:
        return fuzz.fuzz(stack.app, headers, openapi.error_format_ok,
                         examples, seed)
    finally:
        stack.stop()


USERS = [('noauth', LATEST), ('http_basic', MEMBER)]


@pytest.mark.parametrize('auth,headers', USERS)
def test_fuzz(auth, headers):
    examples = fuzz.EXAMPLES if auth == 'noauth' else fuzz.MEMBER_EXAMPLES
    fuzz.assert_clean(run(auth, headers, examples, SEED))


if __name__ == '__main__':
    sys.exit(fuzz.main(__doc__.split('\n')[0], run, USERS, SEED))
