"""Definitions shared by the ironic_lite services."""
