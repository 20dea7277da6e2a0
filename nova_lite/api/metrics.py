"""nova-lite-api's series: the process's (:mod:`nova_lite.metrics`),
its requests' and the database's (:mod:`nova_lite.db.metrics`)."""

from lite_common.metrics import api as api_metrics
from nova_lite import metrics as nova_metrics
from nova_lite.db import metrics as db_metrics


def register() -> None:
    nova_metrics.register_process()
    api_metrics.register()
    db_metrics.register()
