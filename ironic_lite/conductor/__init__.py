"""The ironic-lite-conductor: node flows and clean step handling."""
