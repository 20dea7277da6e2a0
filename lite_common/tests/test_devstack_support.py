"""tools/devstack_support.py helpers the integration tests rely on."""

import importlib
import subprocess

from lite_common.tests import integration


def _support():
    """tools/devstack_support.py (``integration`` puts tools/ on the
    path)."""
    assert integration.TOOLS.is_dir()
    return importlib.import_module('devstack_support')


def test_run_openstack_unchecked_returns_one_type(tmp_path):
    """Item 10 of issue 13: with check=False the helper returned the
    CompletedProcess on failure but plain stdout on success, so a test
    expecting a refusal crashed with AttributeError instead of failing
    its assertion when the command succeeded."""
    support = _support()
    clouds = tmp_path / 'clouds.yaml'
    clouds.write_text(
        'clouds: {x: {auth_type: none, endpoint: "http://127.0.0.1:9"}}\n'
    )
    ok = support.run_openstack(
        clouds, 'x', '--version', parse=False, check=False
    )
    refused = support.run_openstack(
        clouds, 'x', 'no-such-command', parse=False, check=False
    )
    assert isinstance(ok, subprocess.CompletedProcess)
    assert isinstance(refused, subprocess.CompletedProcess)
    assert (ok.returncode, refused.returncode != 0) == (0, True)
    assert support.run_openstack(
        clouds, 'x', '--version', parse=False
    ).startswith('openstack ')
