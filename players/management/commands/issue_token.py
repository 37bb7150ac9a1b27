"""``manage.py issue_token USERNAME [--create]``: print a new API token for a player."""

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError, CommandParser

from players.models import ApiToken


class Command(BaseCommand):
    help = "Print a new personal API token for USERNAME (with --create, create the user first)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("username")
        parser.add_argument("--create", action="store_true", help="create the user if missing")
        parser.add_argument("--name", default="command line", help="a name for the token")

    def handle(self, *args: object, **options: object) -> None:
        User = get_user_model()
        username = str(options["username"])
        user = User.objects.filter(username=username).first()
        if user is None:
            if not options["create"]:
                raise CommandError(f"no player called {username!r} (use --create to create one)")
            field = User._meta.get_field("username")
            try:
                field.run_validators(username)
            except Exception as error:  # a ValidationError with the validator's own words
                raise CommandError(f"{username!r} is not a valid username: {error}") from None
            user = User.objects.create_user(username=username)
            user.set_unusable_password()
            user.save(update_fields=["password"])
        _, raw = ApiToken.issue(user, str(options["name"]))
        self.stdout.write(raw)
