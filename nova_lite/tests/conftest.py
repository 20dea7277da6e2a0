"""Test-wide setup (see lite_common/tests/process_setup.py): before
anything imports oslo_messaging."""

from lite_common.tests import process_setup

process_setup.prepare()
