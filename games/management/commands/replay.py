"""``manage.py replay FILE``: replay a game record and print its result as JSON."""

import json
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError, CommandParser

from games.engines import MalformedRecord
from games.engines.records import ReplayError, replay


class Command(BaseCommand):
    help = "Replay a game record (game-record/1) through its engine and print the result JSON."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("file", help="the record, a JSON file ('-' reads standard input)")

    def handle(self, *args: object, **options: object) -> None:
        record = self.read_record(str(options["file"]))
        try:
            engine, state = replay(record)
        except ReplayError as error:
            raise CommandError(str(error)) from None
        except MalformedRecord as error:
            raise CommandError(f"malformed record: {error}") from None
        if not engine.is_over(state):
            played = len(record["moves"])
            raise CommandError(f"move {played}: the record ends before the game is over")
        self.stdout.write(json.dumps(engine.result(state).as_json()))

    def read_record(self, name: str) -> object:
        try:
            text = self.stdin_text() if name == "-" else Path(name).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as error:
            raise CommandError(f"cannot read {name}: {error}") from None
        try:
            return json.loads(text)
        except json.JSONDecodeError as error:
            raise CommandError(f"malformed record: not JSON ({error})") from None

    def stdin_text(self) -> str:
        import sys

        return sys.stdin.read()
