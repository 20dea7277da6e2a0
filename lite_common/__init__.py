"""Plumbing shared by nova_lite and ironic_lite.

Nothing here imports nova_lite or ironic_lite.
"""
