"""WSGI plumbing: routing, microversions, errors, logging and auth."""
