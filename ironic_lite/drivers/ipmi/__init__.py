"""The ``ipmi`` hardware type: machines managed through their BMC with
IPMI 2.0 over the network, with pyghmi (no ipmitool binary).

Upstream Ironic's ``ipmi`` hardware type names its interfaces
``ipmitool`` (it runs the ipmitool program); these speak the protocol
themselves with pyghmi and are named ``ipmi``.
"""
