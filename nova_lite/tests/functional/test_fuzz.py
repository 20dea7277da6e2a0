"""Fuzz the Compute API and the Image API from their OpenAPI documents
(schemathesis, fixed seed, bounded): no 5xx, errors in each API's
format, no traceback or SQL in any body, answers as documented. As an
admin (noauth) and as a member (http_basic), on a stack with a server,
a flavor, an image, a key pair, a group and an aggregate
(:mod:`api_data`), so that the lists have something to show.

A longer run: ``python -m nova_lite.tests.functional.test_fuzz
--examples 500 --seed 7``.
"""

import os
import sys

import pytest

from lite_common import backend

# Before anything imports oslo.service (run as a script, too).
backend.select_threading()

import schemathesis  # noqa: E402

from lite_common.tests import fuzz  # noqa: E402
from nova_lite.api import image_openapi  # noqa: E402
from nova_lite.api import openapi  # noqa: E402
from nova_lite.tests import stack as nova_stack  # noqa: E402
from nova_lite.tests.functional import api_data  # noqa: E402
from nova_lite.tests.functional import fixtures  # noqa: E402

SEED = int(os.environ.get('STACKLITE_FUZZ_SEED', '1400'))
LATEST = {'OpenStack-API-Version': 'compute latest'}
# demo:demo-secret, a member of its own project.
MEMBER = {**LATEST, 'Authorization': 'Basic ZGVtbzpkZW1vLXNlY3JldA=='}
ADMIN = {'Authorization': 'Basic YWRtaW46YWRtaW4tc2VjcmV0'}


def run(
    auth: str, headers: dict[str, str], examples: int, seed: int
) -> fuzz.Report:
    htpasswd = fixtures.write_htpasswd() if auth == 'http_basic' else None
    stack = nova_stack.Stack(auth=auth, htpasswd=htpasswd).start()
    try:
        api_data.make(stack.app, ADMIN if htpasswd else {}, headers)
        compute = fuzz.fuzz(
            stack.app, headers, openapi.error_format_ok, examples, seed
        )
        image = fuzz.fuzz(
            stack.app,
            # As openstacksdk asks: errors in JSON (without an Accept
            # header Glance's webob, and this API, answer HTML).
            {**headers, 'Accept': 'application/json'},
            image_openapi.error_format_ok,
            examples,
            seed,
            path=image_openapi.PATH,
        )
        return _both(compute, image)
    finally:
        stack.stop()


def _both(one: fuzz.Report, other: fuzz.Report) -> fuzz.Report:
    statuses = dict(one.statuses)
    for status, count in other.statuses.items():
        statuses[status] = statuses.get(status, 0) + count
    return fuzz.Report(
        one.requests + other.requests,
        one.operations + other.operations,
        one.findings + other.findings,
        statuses,
        one.refused + other.refused,
    )


# The image PATCH is a JSON document (Glance's JSON patch media type).
schemathesis.serializer.alias(
    image_openapi.PATCH_MEDIA_TYPE, 'application/json'
)

USERS = [('noauth', LATEST), ('http_basic', MEMBER)]


@pytest.mark.parametrize('auth,headers', USERS)
def test_fuzz(auth, headers):
    examples = fuzz.EXAMPLES if auth == 'noauth' else fuzz.MEMBER_EXAMPLES
    fuzz.assert_clean(run(auth, headers, examples, SEED))


if __name__ == '__main__':
    sys.exit(fuzz.main(__doc__.split('\n')[0], run, USERS, SEED))
