"""Differential test of the Bare Metal API against upstream Ironic."""
