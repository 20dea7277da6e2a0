"""JSON patches of the resources other than nodes."""

import pytest
import webob.exc

from ironic_lite.api import resource_patch


def test_the_values_a_patch_sets_at_a_path():
    patch = [
        {'op': 'replace', 'path': '/owner', 'value': 'a'},
        {'op': 'remove', 'path': '/owner'},
        {'op': 'add', 'path': '/name', 'value': 'b'},
    ]
    assert resource_patch.patch_values(patch, '/owner') == ['a']
    assert resource_patch.patch_values(patch, '/public') == []


@pytest.mark.parametrize(
    'operation',
    [
        {'op': 'add', 'path': '/owner'},
        {'op': 'copy', 'from': '/name', 'path': '/owner'},
        {'op': 'move', 'from': '/name', 'path': '/owner'},
    ],
)
def test_setting_a_checked_path_without_a_value_is_a_400(operation):
    """Found by the fuzz run: a KeyError (500) on PATCH /v1/runbooks and
    /v1/inspection_rules; a copy would also have escaped the check."""
    with pytest.raises(webob.exc.HTTPBadRequest):
        resource_patch.patch_values([operation], '/owner')
