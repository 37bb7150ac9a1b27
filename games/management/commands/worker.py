"""``manage.py worker``: runs the site's timed jobs (turn timers, arenas) until stopped."""

from __future__ import annotations

import os
import signal
import time

from django.conf import settings
from django.core.management.base import BaseCommand, CommandParser
from django.db import close_old_connections

from games.thinking import close_worker_pool, pool_cores
from games.worker import run_due_jobs


class Command(BaseCommand):
    help = "Run the worker: bots play for players out of time, arenas start, pair and end."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--once", action="store_true", help="run the due jobs once and exit")
        parser.add_argument(
            "--tick",
            type=float,
            default=float(os.environ.get("PDC_WORKER_TICK", "1.0")),
            help="seconds between two rounds of jobs",
        )

    def handle(self, *args: object, **options: object) -> None:
        pool_cores()  # a list of cores the pool could not keep to stops the worker here
        if options["once"]:
            run_due_jobs()
            return
        stopping = []
        for sig in (signal.SIGTERM, signal.SIGINT):
            signal.signal(sig, lambda *_: stopping.append(True))
        self.stdout.write(f"worker started (pid {os.getpid()})")
        if not settings.WORKER_THINKS:
            self.stdout.write(
                "WORKER_THINKS=0: the level-3 bots' moves and the analysis after the game are "
                "left to workers that think"
            )
        while not stopping:
            close_old_connections()
            started = time.monotonic()
            run_due_jobs()
            time.sleep(max(0.0, float(options["tick"]) - (time.monotonic() - started)))
        # The pool's processes end with the worker (a turn they were thinking about comes back
        # when its claim runs out).
        close_worker_pool()
        self.stdout.write("worker stopped")
