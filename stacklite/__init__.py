"""stacklite: launchers that span the service families (the all-in-one)."""
