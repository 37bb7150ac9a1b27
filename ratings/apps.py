from django.apps import AppConfig


class RatingsConfig(AppConfig):
    name = "ratings"
    verbose_name = "Ratings"

    def ready(self) -> None:
        from games.seat_facts import register_seat_facts
        from games.services import match_ended

        from . import buckets  # noqa: F401  (registers the worker job that folds them)
        from .services import rate_finished_match
        from .table import rating_facts

        match_ended.connect(rate_finished_match, dispatch_uid="ratings.rate_finished_match")
        register_seat_facts(rating_facts)
