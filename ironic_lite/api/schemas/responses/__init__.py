"""JSON schemas of the Bare Metal API's success answers, for the OpenAPI
document (:mod:`ironic_lite.api.openapi`) and the fuzz run's
conformance check.

Each schema holds at every microversion of its operation: a field that
some versions leave out is listed, not required, and its description
says since (or until) which version it is shown. Objects do not allow
other fields, so a field the views add without a schema is a mismatch.
"""
