"""The Celery app: `celery -A config worker`. Settings come from Django's, prefixed CELERY_.

Where a worker loads the NLU model (about 2 s, up to 4 s on a busy machine): in the process that runs
its tasks, before it takes one, and never in a process that forks afterwards (a warm-up
thread holding onnx's import lock while the prefork pool forked left every child blocked for ever).
"""

import os

from celery import Celery
from celery.signals import worker_init, worker_process_init

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

app = Celery("concerto")
app.config_from_object("django.conf:settings", namespace="CELERY")
# A prefork child reports itself up only once its model is loaded (below); Celery's 4 s default
# would kill a child still loading on a busy machine, and start another to be killed in turn.
app.conf.worker_proc_alive_timeout = 60
app.autodiscover_tasks()


def _pool_forks(pool_cls) -> bool:
    from celery.concurrency import get_implementation
    from celery.concurrency.prefork import TaskPool

    pool = get_implementation(pool_cls)  # an alias ("prefork", "solo") or the class the CLI passes
    return isinstance(pool, type) and issubclass(pool, TaskPool)


@worker_init.connect
def _warm_up_the_main_process(sender, **_) -> None:
    """solo and threads pools run tasks in the main process: load the model there, before the first
    task. A prefork pool's main process only forks and supervises children: nothing is loaded in it."""
    if not _pool_forks(sender.pool_cls):
        from orchestrator.apps import warm_up_in_server

        warm_up_in_server()


@worker_process_init.connect
def _warm_up_a_pool_child(**_) -> None:
    """A prefork child, just forked (and it forks nothing itself): load the model before it reports up."""
    from orchestrator.apps import warm_up_in_server

    warm_up_in_server()
