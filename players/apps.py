from django.apps import AppConfig


class PlayersConfig(AppConfig):
    name = "players"
    verbose_name = "Players"

    def ready(self) -> None:
        from django.contrib.auth import get_user_model
        from django.db.models.signals import post_delete, post_save

        from .auth import tokens_changed, user_changed
        from .models import ApiToken

        # Every process drops the API tokens it remembers when one changes (players/auth.py).
        post_save.connect(tokens_changed, sender=ApiToken, dispatch_uid="players.token_saved")
        post_delete.connect(tokens_changed, sender=ApiToken, dispatch_uid="players.token_deleted")
        user = get_user_model()
        post_save.connect(user_changed, sender=user, dispatch_uid="players.user_saved")
        post_delete.connect(tokens_changed, sender=user, dispatch_uid="players.user_deleted")
