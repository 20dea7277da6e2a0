"""The gabbi files of both APIs are organised one way (see
doc/source/contributor/testing.rst, "API tests"): lower case words
joined by dashes, a resource's file named after it, the walks of a
microversion's edges in ``microversions-*.yaml``."""

from pathlib import Path
import re

ROOT = Path(__file__).resolve().parents[2]
GABBITS = (
    ROOT / 'nova_lite' / 'tests' / 'functional' / 'gabbits',
    ROOT / 'ironic_lite' / 'tests' / 'functional' / 'gabbits',
)
NAME = re.compile(r'^[a-z0-9]+(?:[-.][a-z0-9]+)*\.yaml$')


def test_gabbi_files_are_named_one_way():
    names = [path for folder in GABBITS for path in folder.glob('*.yaml')]
    assert len(names) > 100
    assert [path.name for path in names if not NAME.match(path.name)] == []


def test_no_gabbi_file_hides_in_a_subfolder():
    """Only the top of a gabbits folder is loaded: a YAML file below it
    would never run (``data/`` holds request bodies, in JSON)."""
    hidden = [
        path
        for folder in GABBITS
        for path in folder.rglob('*.yaml')
        if path.parent != folder
    ]
    assert hidden == []
