"""ironic_lite tests."""
