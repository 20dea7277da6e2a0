"""Alembic environment of the neutron_lite schema."""

from lite_common import db as lite_db
from neutron_lite.db import models

lite_db.run_alembic_env(models.Base.metadata)
