"""What a read of a table takes from the previous read of it (``rendering.kept_memo``) besides
the moves: the spectator's table info, made again only when something it shows besides the
version and the seats taken changed (status, end, options, creator, links), and the table's URLs
reversed once per read. Every viewer must still get exactly what a read from scratch gives."""

from __future__ import annotations

import random

import pytest
from django.contrib.auth.models import AnonymousUser
from django.utils import translation

from games import rendering, table_extras
from games.engines import get_engine
from tests.sockets import first_arguments

from .factories import play_one_move, started_table

pytestmark = pytest.mark.django_db


def without_timer(parts: dict[str, str]) -> dict[str, str]:
    return {part: html for part, html in parts.items() if part != "timer"}


@pytest.mark.parametrize("game", ["part-du-chef", "cafe-fatal", "pizza-party"])
def test_reads_after_earlier_ones_to_the_end_of_a_match_show_what_fresh_reads_show(game):
    """Every version of a match played out, each read after the one before (the status and the
    end reason change on the way), in two languages, for every viewer."""
    match, users = started_table(game)
    rng = random.Random(11)
    earlier = rendering.load_table(match.pk)
    for language in ("en", "fr"):
        with translation.override(language):
            rendering.table_parts(earlier, None)
    while match.is_playing:
        match = play_one_move(match, users, rng)
        after = rendering.load_table(match.pk, earlier)
        fresh = rendering.load_table(match.pk)
        for language in ("en", "fr"):
            with translation.override(language):
                for viewer in [*users, AnonymousUser()]:
                    assert without_timer(rendering.table_parts(after, viewer)) == without_timer(
                        rendering.table_parts(fresh, viewer)
                    )
                engine = get_engine(match.game)
                spectator = rendering.table_context(match, None, snapshot=after)
                assert spectator["table"] == rendering.table_info(
                    match, engine, fresh.seats, None, None
                )
        earlier = after
    assert match.status == "finished"


def test_the_table_info_is_made_again_only_when_more_than_the_version_changes(monkeypatch):
    """Made at the first read, then kept at every move, made again when the match ends (its
    status, label and end reason change)."""
    match, users = started_table()
    rng = random.Random(5)
    made = first_arguments(monkeypatch, rendering, "table_info")
    earlier = rendering.load_table(match.pk)
    statuses = []
    while True:
        with translation.override("en"):
            parts = rendering.table_parts(earlier, users[0])
        assert f'data-version="{earlier.version}"' in parts["status"]
        statuses.append(earlier.match.status)
        if not match.is_playing:
            break
        match = play_one_move(match, users, rng)
        earlier = rendering.load_table(match.pk, earlier)
    assert len(statuses) > 10 and statuses[-1] == "finished"
    assert len(made) == 2


def test_a_read_reverses_the_table_s_urls_once_for_all_of_its_viewers(monkeypatch):
    match, users = started_table()
    snapshot = rendering.load_table(match.pk)
    reversed_in_rendering = first_arguments(monkeypatch, rendering, "table_urls")
    reversed_in_extras = first_arguments(monkeypatch, table_extras, "table_urls")
    with translation.override("en"):
        for viewer in [*users, AnonymousUser()]:
            rendering.table_parts(snapshot, viewer)
    assert reversed_in_rendering == [match.pk]
    assert reversed_in_extras == []
