"""ironic-lite-agent: the ramdisk agent of an emulated machine.

It speaks the subset of ironic-python-agent's protocol that cleaning
needs: lookup and heartbeat against the Bare Metal API
(:mod:`heartbeater`), and the command API ``/v1/commands/``
(:mod:`api`, :mod:`commands`) whose clean steps act on disk image files
(:mod:`disks`). A real ironic-python-agent can replace it.
"""
