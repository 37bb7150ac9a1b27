"""The move log: each move keeps the engine's sentence (``describe_move``) on its Move row; a page
translates it, names each seat by its player, and shows a line only to the viewers the engine's
record shows the move to. Automatic moves are announced in the status."""

from __future__ import annotations

import random
from datetime import timedelta

import pytest
from django.contrib.auth.models import AnonymousUser
from django.utils import timezone, translation
from django.utils.translation import gettext

from games import rendering, services
from games.engines import CHANCE, get_engine
from games.engines.base import Sentence
from games.models import Match, Move
from tests.presenters.helpers import part, user_of_seat

from .factories import make_user, started_table

pytestmark = pytest.mark.django_db


def log_of(match, viewer) -> str:
    return part(rendering.render_table_fragments(match, viewer), "table-log")


@pytest.mark.parametrize(("game", "players"), [("part-du-chef", 3), ("cafe-fatal", 2)])
def test_every_move_keeps_the_engines_sentence_for_it(game, players):
    match, users = started_table(game=game, players=players)
    engine = get_engine(game)
    rng = random.Random(1)
    for _ in range(6):
        seat = engine.to_move(match.state)[0]
        before = match.state
        move = engine.random_move(before, seat, rng)
        expected = engine.describe_move(before, seat, move)
        match = services.play(match.pk, user_of_seat(match, users, seat), move, match.version)
        row = Move.objects.get(match=match, number=len(before["log"]))
        assert row.description == expected.as_json()


def test_a_move_that_needs_no_line_keeps_none():
    match, _users = started_table(game="part-du-chef", players=3)
    deal = Move.objects.get(match=match, seat=CHANCE)
    assert deal.description is None
    assert "deal" not in log_of(match, AnonymousUser())


def test_the_log_names_the_players_and_speaks_the_viewers_language():
    match, users = started_table(game="part-du-chef", players=3)
    engine = get_engine("part-du-chef")
    chef = engine.to_move(match.state)[0]
    chef_user = user_of_seat(match, users, chef)
    match = services.play(match.pk, chef_user, {"cut": [0, 4, 9]}, match.version)
    template = "{player} cuts pizza {number} at positions {cut}."
    for language in ("en", "fr", "de", "it"):
        with translation.override(language):
            expected = gettext(template).format(player=chef_user.username, number=1, cut="0, 4, 9")
            assert expected in log_of(match, AnonymousUser())
            if language != "en":
                assert gettext(template) != template


def test_a_secret_pick_is_in_its_pickers_log_only_until_every_pick_is_in():
    engine = get_engine("pizza-party")
    match, users = started_table(game="pizza-party", players=3)
    while match.state["phase"] == "add":
        seat = engine.to_move(match.state)[0]
        move = next(engine.legal(match.state, seat))
        match = services.play(match.pk, user_of_seat(match, users, seat), move, match.version)
    picker = user_of_seat(match, users, 0)
    match = services.play(match.pk, picker, {"cut": 4}, match.version)
    line = f"{picker.username} picks cut 4."
    assert line in log_of(match, picker)
    for viewer in (user_of_seat(match, users, 1), user_of_seat(match, users, 2), AnonymousUser()):
        assert line not in log_of(match, viewer) and "picks cut" not in log_of(match, viewer)
    for seat in (1, 2):
        match = services.play(match.pk, user_of_seat(match, users, seat), {"cut": 1}, match.version)
    for viewer in [*users, AnonymousUser()]:
        assert line in log_of(match, viewer)


def test_moves_made_by_bots_and_chance_are_announced_with_the_same_sentences():
    host = make_user()
    match = services.create_table(host, "cafe-fatal", seats=3)
    for _ in range(2):
        match = services.add_bot(host, match.pk, 1)
    match.refresh_from_db()
    engine = get_engine("cafe-fatal")
    seat = match.seats.get(user=host).index
    names = rendering.seat_names({s.index: s for s in match.seats.all()}, 3)
    rng = random.Random(2)
    while True:
        match = services.play(
            match.pk, host, engine.random_move(match.state, seat, rng), match.version
        )
        last_human = Move.objects.filter(match=match, seat=seat).order_by("-number").first().number
        automatic = list(Move.objects.filter(match=match, number__gt=last_human).order_by("number"))
        if any(m.by_bot for m in automatic) or not match.is_playing:
            break
    status = part(rendering.render_table_fragments(match, host), "table-status")
    announced = status[status.index('data-testid="announced"') :]
    for row in automatic[-rendering.ANNOUNCED_MOVES :]:
        text = rendering.render_sentence(Sentence.from_json(row.description), names)
        assert f"<li>{text}</li>" in announced  # a bot's seat is named as a bot already


def test_a_persons_move_played_by_the_bot_says_so():
    match, users = started_table(game="cafe-fatal", players=2, mode="ranked", turn_seconds=60)
    engine = get_engine("cafe-fatal")
    seat = engine.to_move(match.state)[0]
    first = next(engine.legal(match.state, seat))
    match = services.play(match.pk, user_of_seat(match, users, seat), first, match.version)
    Match.objects.filter(pk=match.pk).update(deadline=timezone.now() - timedelta(seconds=1))
    late = engine.to_move(match.state)[0]
    assert services.play_for_timeouts(match.pk)
    match.refresh_from_db()
    row = Move.objects.filter(match=match, seat=late, by_bot=True).first()
    name = user_of_seat(match, users, late).username
    said = rendering.render_sentence(Sentence.from_json(row.description), [name, name])
    assert f"{said} (played by the bot)" in log_of(match, AnonymousUser())
