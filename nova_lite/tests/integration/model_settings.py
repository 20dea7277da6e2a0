"""The parameters of a model test run: from the command line of the
module run as a program (they win), else from the environment.

They live here, not in the test module, because running the module as a
program (``python -m``) makes it ``__main__``, and pytest then imports
it again under its own name: two modules, two sets of globals. This one
is imported once by both, so the settings the command line put on
pytest's config are the ones the tests read, whatever was imported (or
set in the environment) first.
"""

import dataclasses
import os

import pytest


@dataclasses.dataclass(frozen=True)
class Settings:
    sequences: int = 2
    steps: int = 12
    seed: int = 1200
    replay: str | None = None  # a JSON list of steps, or @FILE

    @classmethod
    def from_env(cls) -> 'Settings':
        env = os.environ
        return cls(
            int(env.get('STACKLITE_MODEL_SEQUENCES', cls.sequences)),
            int(env.get('STACKLITE_MODEL_STEPS', cls.steps)),
            int(env.get('STACKLITE_MODEL_SEED', cls.seed)),
            env.get('STACKLITE_MODEL_REPLAY') or None,
        )


KEY = pytest.StashKey[Settings]()


def of(config: pytest.Config) -> Settings:
    """The command line's settings for this run, else the
    environment's, read now."""
    return config.stash.get(KEY, None) or Settings.from_env()


class CommandLine:
    """A pytest plugin carrying the command line's settings."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings

    def pytest_configure(self, config: pytest.Config) -> None:
        config.stash[KEY] = self.settings
