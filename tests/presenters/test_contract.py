"""What every game's presenter owes the generic table, checked over every registered engine: a
new game is covered without edits here."""

from __future__ import annotations

import re

import pytest
from django.template.loader import get_template
from django.test import Client
from django.urls import reverse
from django.utils import translation

from games import rendering
from games.engines import all_engines, get_engine
from games.presenters import all_presenters, get_presenter
from tests.site.factories import make_user

from .helpers import GAMES, LIVE_PARTS, NUMBER, numbers_in, play_to_the_end, playout, viewers

pytestmark = pytest.mark.django_db

ENGINES = [engine.slug for engine in all_engines()]


@pytest.mark.parametrize("slug", ENGINES)
def test_every_registered_game_has_a_presenter(slug):
    assert get_presenter(slug).slug == slug


def test_every_presenter_belongs_to_a_registered_game():
    assert sorted(p.slug for p in all_presenters()) == sorted(ENGINES)


@pytest.mark.parametrize("slug", ENGINES)
def test_every_presenter_has_every_part_of_the_table(slug):
    for name in get_presenter(slug).templates.values():
        get_template(name)  # raises when the file or the partial is missing


@pytest.mark.parametrize("slug", ENGINES)
def test_every_game_is_offered_by_the_create_forms_of_tables_and_arenas(slug, client):
    client.force_login(make_user())
    for page in ("games:lobby", "arena:list"):
        html = client.get(reverse(page)).content.decode()
        form = html[html.index('name="game"') : html.index("</select>", html.index('name="game"'))]
        assert f'<option value="{slug}"' in form, page


@pytest.mark.parametrize(("game", "players"), GAMES)
def test_every_live_part_is_rendered_for_every_viewer_as_the_match_goes(game, players):
    checkpoints = {0, 1, 2, 5, 9, 14}
    for number, (match, users) in enumerate(playout(game, players, seed=players, moves=14)):
        if number not in checkpoints:
            continue
        for viewer in viewers(users):
            html = rendering.render_table_fragments(match, viewer)
            for dom_id in LIVE_PARTS:
                assert re.search(rf'<\w+ id="{dom_id}"[^>]*hx-swap-oob="true"', html), dom_id
            assert html.count('hx-swap-oob="true"') == len(LIVE_PARTS)
            assert f'data-version="{match.version}"' in html
            assert "<svg" in html


def boards_in_every_language(match, viewer):
    rendered = {}
    for language in ("en", "fr", "de", "it"):
        with translation.override(language):
            rendered[language] = rendering.render_table_fragments(match, viewer)
    return rendered


@pytest.mark.parametrize(("game", "players"), GAMES)
def test_numbers_in_boards_are_never_localized(game, players):
    """In fr, de and it Django writes 33,6 for 33.6: the board's coordinates, the buttons laid
    over it and the data attributes must read the same in every language."""
    for number, (match, users) in enumerate(playout(game, players, seed=11, moves=12)):
        if number not in (1, 12):
            continue
        engine = get_engine(game)
        mover = engine.to_move(match.state)[0] if match.is_playing else 0
        mover_user = next(u for u in users if match.seats.get(index=mover).user_id == u.pk)
        rendered = boards_in_every_language(match, mover_user)
        english = numbers_in(rendered["en"])
        assert any("." in n for n in english), "the drawing has no fractional coordinate"
        for language, html in rendered.items():
            numbers = numbers_in(html)
            assert all(NUMBER.match(n) for n in numbers), (
                language,
                [n for n in numbers if not NUMBER.match(n)][:5],
            )
            assert numbers == english, language


@pytest.mark.parametrize(("game", "players"), GAMES)
def test_the_result_shows_the_engines_breakdown_columns_and_the_replay_steps_through_the_log(
    game, players
):
    (match, users), *_ = playout(game, players, seed=5, moves=0)
    match = play_to_the_end(match, users, seed=5)
    engine = get_engine(game)
    html = rendering.render_table_fragments(match, users[0])
    result = html[html.index('id="table-result"') :]
    for column in engine.breakdown_columns:
        assert f'<th scope="col">{column.label}</th>' in result
    breakdown = engine.breakdown(match.state)
    for seat in match.seats.all():
        row = re.search(rf'<tr data-seat="{seat.index}">(.*?)</tr>', result, re.S).group(1)
        cells = re.findall(r"<td[^>]*>(-?\d+)</td>", row)
        expected = [seat.rank] + [breakdown[seat.index][c.key] for c in engine.breakdown_columns]
        assert [int(c) for c in cells] == expected

    client = Client()
    url = reverse("games:replay", args=[match.pk])
    log = rendering.log_lines(
        engine, match.state, rendering._move_rows(match), ["?"] * players, None
    )
    first = client.get(url).content.decode()
    assert f"Move 0 of {len(log)}" in first
    last = client.get(url, {"step": len(log)}).content.decode()
    assert 'data-testid="breakdown"' in last and 'data-testid="replay-next"' not in last
