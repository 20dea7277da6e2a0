"""Alembic environment of the nova_lite schema."""

from lite_common import db as lite_db
from nova_lite.db import models

lite_db.run_alembic_env(models.Base.metadata)
