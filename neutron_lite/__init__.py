"""neutron_lite: the Networking API v2.0, control plane only.

It records networks, subnets and ports and allocates their addresses
(IPAM); it forwards no packets. nova_lite and ironic_lite use it as Nova
and Ironic use Neutron.
"""
