"""The profile's rating charts and recent matches are written in Python (issue 10: through the
template engine they were half of a profile drawn afresh); they must be byte for byte what the
templates ``ratings/chart.html`` and ``players/recent_matches.html`` draw, on seeded data, in
every language and in another time zone than UTC."""

from __future__ import annotations

import random
from datetime import UTC, datetime, timedelta

import pytest
from django.conf import settings
from django.template.loader import render_to_string
from django.test import Client
from django.utils import timezone, translation

from games.models import Match
from players import profile
from players.rendering import recent_matches_html
from ratings import ladder
from ratings.charts import build_chart, chart_svg

from ..site.factories import make_user
from ..site.test_bot_profiles import finished_with_bots
from .test_pages import GAME, ranked_match

LANGUAGES = [code for code, _name in settings.LANGUAGES]
ZONES = ["UTC", "Europe/Paris", "America/Los_Angeles"]
START = datetime(2026, 3, 1, 23, 30, tzinfo=UTC)


def histories() -> list[list[tuple[datetime, float]]]:
    """Seeded histories of every shape a chart draws: one match, matches stamped alike, under a
    day, over many days, long and wide."""
    rng = random.Random(10)
    walk = [1500.0]
    for _ in range(120):
        walk.append(walk[-1] + rng.uniform(-40, 40))
    return [
        [(START, 1512.4)],
        [(START, 1500.0), (START, 1490.5), (START, 1530.0)],
        [(START + timedelta(hours=i), 1500.0 + 7 * i) for i in range(5)],
        [(START + timedelta(days=3 * i), value) for i, value in enumerate(walk[:100])],
        [(START + timedelta(minutes=97 * i), value) for i, value in enumerate(walk)],
        [(START, 900.0), (START + timedelta(days=400), 2400.0)],
    ]


@pytest.mark.parametrize("language", LANGUAGES)
@pytest.mark.parametrize("zone", ZONES)
def test_a_chart_written_in_python_is_what_the_template_draws(language, zone):
    titles = ["Rating history in La Part du Chef", "<b title=\"x\">&'quoted'</b>"]
    with translation.override(language), timezone.override(zone):
        for index, points in enumerate(histories()):
            chart = build_chart(points)
            for title in titles:
                context = {"chart": chart, "chart_id": f"history-{index}<&>", "title": title}
                expected = render_to_string("ratings/chart.html", context)
                assert chart_svg(chart, chart_id=context["chart_id"], title=title) == expected


def seeded_recent_rows(target) -> list[dict]:
    return profile.recent_rows_from(target, profile_read(profile.recent_sql(target)))


def profile_read(statement) -> list[tuple]:
    from players.together import read_together

    return read_together([statement])[0]


@pytest.mark.django_db
@pytest.mark.parametrize("language", LANGUAGES)
def test_recent_matches_written_in_python_are_what_the_template_draws(language):
    ann, bob, odd = make_user("ann"), make_user("bob"), make_user("<o&d'>")
    for seed in range(3):
        ranked_match([ann, bob, odd], seed=seed)
    friendly = finished_with_bots([1], people=1, game=GAME)
    person = next(seat.user for seat in friendly.seats.all() if seat.user_id)
    with translation.override(language):
        for target in (ann, odd, person, make_user("nobody")):
            rows = seeded_recent_rows(target)
            for zone in ZONES:
                with timezone.override(zone):
                    expected = render_to_string("players/recent_matches.html", {"recent": rows})
                    assert recent_matches_html(rows) == expected
        # What seeded matches never hold: no score or rank, no replay, an unrated delta.
        odd_rows = [{**seeded_recent_rows(ann)[0], "score": None, "rank": None}]
        odd_rows.append({**odd_rows[0], "replay_url": None, "delta": None, "ranked": False})
        expected = render_to_string("players/recent_matches.html", {"recent": odd_rows})
        assert recent_matches_html(odd_rows) == expected


@pytest.mark.django_db
def test_the_recent_matches_read_in_one_query_are_what_the_orm_reads():
    ann, bob, cid = make_user("ann"), make_user("bob"), make_user("cid")
    for seed in range(4):
        ranked_match([ann, bob, cid][: 2 + seed % 2], seed=seed)
    ranked_match([ann, bob], seed=9, private=True)
    friendly = finished_with_bots([2], people=1, game=GAME)
    for user in (ann, bob, next(s.user for s in friendly.seats.all() if s.user_id)):
        matches = ladder.recent_matches(user)
        rows = seeded_recent_rows(user)
        assert [row["id"] for row in rows] == [match.pk for match in matches]
        for row, match in zip(rows, matches, strict=True):
            seats = list(match.seats.all())
            mine = next(seat for seat in seats if seat.user_id == user.pk)
            assert row["finished_at"] == match.finished_at
            assert (row["rank"], row["score"], row["players"]) == (
                mine.rank,
                mine.score,
                len(seats),
            )
            assert [o["name"] for o in row["opponents"]] == [
                seat.display_name for seat in seats if seat is not mine
            ]
            delta = match.rating_delta
            assert row["delta"] == (None if delta is None else f"{round(delta):+d}")
            assert row["ranked"] == (match.mode == Match.Mode.RANKED)


@pytest.mark.django_db
def test_a_profile_drawn_before_shows_an_opponent_renamed_or_deleted_since():
    """The recent matches are kept under the rows they print: an opponent's new name (or their
    account gone) shows on the next read, in the process that drew them before."""
    ann, bob, cid = make_user("ann"), make_user("bob"), make_user("cid")
    ranked_match([ann, bob, cid], seed=1)
    assert 'href="/players/bob/"' in Client().get("/players/ann/").content.decode()
    bob.username = "roberto"
    bob.save()
    html = Client().get("/players/ann/").content.decode()
    assert 'href="/players/roberto/"' in html and "/players/bob/" not in html
    cid.delete()
    html = Client().get("/players/ann/").content.decode()
    assert "/players/cid/" not in html and 'href="/players/roberto/"' in html


# --- the whole page ----------------------------------------------------------------------------
def page_request(viewer, path: str = "/players/ann/?from=<here>&x=1", notes: tuple = ()):
    """A request as the middleware leaves it (session, user, messages), with ``notes`` waiting
    as messages."""
    from django.contrib import messages
    from django.contrib.messages.storage.fallback import FallbackStorage
    from django.contrib.sessions.backends.db import SessionStore
    from django.test import RequestFactory

    request = RequestFactory(HTTP_HOST="localhost").get(path)
    request.user, request.session = viewer, SessionStore()
    request._messages = FallbackStorage(request)
    for level, text in notes:
        messages.add_message(request, level, text)
    return request


def drawn_both_ways(viewer, context: dict, notes: tuple = ()) -> tuple[str, str]:
    """The page of ``context`` through the template and written in Python, each with its own
    request (drawing reads the messages), CSRF tokens masked alike."""
    from players.profile_html import profile_page_html

    from .test_pages import without_csrf

    template = render_to_string("players/profile.html", context, page_request(viewer, notes=notes))
    python = profile_page_html(page_request(viewer, notes=notes), context)
    return without_csrf(template), without_csrf(python)


def odd_context(context: dict) -> dict:
    """``context`` with what seeded data rarely holds: online, a truncated history, a friend
    note, every medal, a trophy without an end, text to escape, no badge count read."""
    sections = [{**section} for section in context["ratings"]]
    for section in sections[:1]:
        section.update(history_truncated=True, history_count=100, chart_title="<b>&'t'</b>")
    one = {
        "place": 1,
        "tournament_id": 7,
        "tournament": "Friday <arena> & co",
        "game": "La Part du Chef",
        "game_slug": GAME,
        "ends_at": START,
    }
    trophies = [one, {**one, "place": 2, "ends_at": None}, {**one, "place": 3, "game": "<g>"}]
    odd = {**context, "online": True, "ratings": sections, "trophies": trophies}
    odd["friend_note"] = "A <note> & 'more'"
    odd.pop("incoming_friend_requests", None)
    return odd


@pytest.mark.django_db
@pytest.mark.parametrize("language", LANGUAGES)
def test_the_profile_page_written_in_python_is_what_the_template_draws(language):
    from django.contrib import messages
    from django.contrib.auth.models import AnonymousUser
    from django.utils.safestring import mark_safe

    from players import friends

    ann, bob, odd = make_user("ann"), make_user("bob"), make_user("<o&d'>")
    strangers = [make_user(f"stranger{i}") for i in range(3)]
    for seed in range(3):
        ranked_match([ann, bob, odd], seed=seed)
    ranked_match([ann, bob], game="pizza-party", seed=4)
    friends.request_friend(strangers[0], ann)  # ann has a request waiting: her badge
    friends.request_friend(strangers[1], ann)
    friends.request_friend(bob, ann)
    friends.accept(ann, bob)
    friends.request_friend(odd, ann)  # odd asked ann: "requested" for odd, "incoming" for ann
    notes = ((messages.INFO, "Saved <b>&</b>"), (messages.ERROR, mark_safe("<i>safe</i>")))
    viewers = [AnonymousUser(), ann, bob, odd, strangers[2]]
    with translation.override(language):
        for zone in ZONES:
            with timezone.override(zone):
                for target in (ann, odd, strangers[2]):
                    for viewer in viewers:
                        context = profile.profile_context(target, viewer)
                        for shown in (context, odd_context(context)):
                            template, python = drawn_both_ways(viewer, shown, notes)
                            assert python == template
                            template, python = drawn_both_ways(viewer, shown)
                            assert python == template


@pytest.mark.django_db
def test_the_profile_page_is_the_one_the_template_draws_over_http():
    """The view answers with the page written in Python: the same as the template would draw
    with the view's own context."""
    from .test_pages import logged_in, without_csrf

    ann, bob = make_user("ann"), make_user("bob")
    ranked_match([ann, bob], seed=3)
    response = logged_in(bob).get("/players/ann/")
    assert response.status_code == 200 and response["Content-Type"] == "text/html; charset=utf-8"
    context = profile.profile_context(ann, bob)
    expected = render_to_string("players/profile.html", context, page_request(bob, "/players/ann/"))
    assert without_csrf(response.content.decode()) == without_csrf(expected)


@pytest.mark.parametrize("prefix", ["/", "/pdc/"])
def test_a_replay_link_is_what_reverse_gives(prefix):
    from django.urls import reverse, set_script_prefix

    try:
        set_script_prefix(prefix)
        for match_id in (1, 42, 918273645, 10**12):
            assert profile.match_replay_url(match_id) == reverse("games:replay", args=[match_id])
    finally:
        set_script_prefix("/")
