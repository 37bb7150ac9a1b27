from django.apps import AppConfig


class ArenaConfig(AppConfig):
    name = "arena"
    verbose_name = "Arena tournaments"

    def ready(self) -> None:
        from games.services import match_finished

        # Registers the arena's worker jobs.
        from . import jobs  # noqa: F401
        from .services import record_match_result

        match_finished.connect(record_match_result, dispatch_uid="arena.record_match_result")
