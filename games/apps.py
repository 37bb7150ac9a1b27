from django.apps import AppConfig


class GamesConfig(AppConfig):
    name = "games"
    verbose_name = "Games"

    def ready(self) -> None:
        from django.conf import settings

        # Registers the worker's jobs.
        from . import worker  # noqa: F401
        from .engines import search

        # How long a level-3 bot thinks about a move: seconds of its thread's CPU, one core's.
        search.set_default_budget(search.Budget(seconds=settings.BOT_LEVEL3_BUDGET, on_cpu=True))
