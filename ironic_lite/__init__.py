"""ironic_lite: a small Ironic-compatible bare-metal control plane."""
