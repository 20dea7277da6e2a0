"""Alembic environment of the ironic_lite schema."""

from ironic_lite.db import models
from lite_common import db as lite_db

lite_db.run_alembic_env(models.Base.metadata)
