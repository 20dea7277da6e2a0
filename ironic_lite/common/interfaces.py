"""The interface types of a node, known to the Bare Metal API (which
lists and sets them) and to the conductor and drivers (which load them).
"""

#: Every interface type a node has (upstream's thirteen): the three it
#: cannot do without, then the standard ones (drivers/standard.py).
INTERFACE_TYPES = (
    'power',
    'management',
    'deploy',
    'boot',
    'network',
    'bios',
    'console',
    'firmware',
    'inspect',
    'raid',
    'rescue',
    'storage',
    'vendor',
)
