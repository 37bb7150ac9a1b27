from django.apps import AppConfig


class RatingsConfig(AppConfig):
    name = "ratings"
    verbose_name = "Ratings"

    def ready(self) -> None:
        from games.services import match_ended

        from . import buckets  # noqa: F401  (registers the worker job that folds them)
        from .services import rate_finished_match

        match_ended.connect(rate_finished_match, dispatch_uid="ratings.rate_finished_match")
