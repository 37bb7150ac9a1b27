from django.apps import AppConfig


class ArenaConfig(AppConfig):
    name = "arena"
    verbose_name = "Arena tournaments"

    def ready(self) -> None:
        from games.rendering import register_table_links
        from games.services import match_ended, register_watch_rule

        # Registers the arena's worker jobs.
        from . import jobs  # noqa: F401
        from .rendering import link_back_to_arena
        from .services import arena_match_ended, entrants_may_watch

        match_ended.connect(arena_match_ended, dispatch_uid="arena.arena_match_ended")
        register_table_links(link_back_to_arena)
        register_watch_rule(entrants_may_watch)
