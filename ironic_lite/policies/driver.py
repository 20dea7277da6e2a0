"""Policies of the drivers (hardware types)."""

from ironic_lite.policies.base import ADMIN
from ironic_lite.policies.base import rule

rules = [
    rule('baremetal:driver:get', ADMIN,
         'List the drivers (hardware types) and show one.',
         [('GET', '/drivers'), ('GET', '/drivers/{driver_name}')]),
    rule('baremetal:driver:get_properties', ADMIN,
         'Show the driver_info properties a driver reads.',
         [('GET', '/drivers/{driver_name}/properties')]),
]
