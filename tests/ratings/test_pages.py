"""The rankings pages, the profile page and the ladder in the JSON API."""

from __future__ import annotations

import re
from datetime import timedelta

import pytest
from django.apps import apps
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from games import services
from games.engines import all_engines
from games.models import Match
from players import friends, presence
from players import profile as profile_module
from ratings.api import ratings_json, recent_json, trophies_json
from ratings.models import Rating, RatingChange

from ..site.factories import make_user, play_to_the_end

pytestmark = pytest.mark.django_db

GAME = "part-du-chef"


def rate(name: str, value: float, matches: int = 20, game: str = GAME, wins: int = 0):
    user = make_user(name)
    Rating.objects.create(user=user, game=game, value=value, matches=matches, wins=wins)
    return user


def ranked_match(users: list, game: str = GAME, seed: int = 0, **kwargs) -> Match:
    match = services.create_table(users[0], game, seats=len(users), mode="ranked", **kwargs)
    for user in users[1:]:
        services.join_table(user, match.pk, invite_code=match.invite_code)
    return play_to_the_end(Match.objects.get(pk=match.pk), users, seed=seed)


def logged_in(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


def queries(client: Client, path: str) -> int:
    with CaptureQueriesContext(connection) as captured:
        assert client.get(path).status_code == 200
    return len(captured.captured_queries)


def rows_of(html: str) -> list[str]:
    return re.findall(r'<tr data-player="([^"]+)"', html)


# --- rankings pages --------------------------------------------------------------------------
def test_the_rankings_index_lists_every_game_with_its_leaders():
    rate("ann", 1720.0)
    rate("bob", 1480.0, game="pizza-party", matches=3)
    html = Client().get("/rankings/").content.decode()
    for engine in all_engines():
        assert f'href="/rankings/{engine.slug}/"' in html
    assert 'href="/players/ann/"' in html and "1720" in html
    assert re.search(r"1480<abbr[^>]*>\?</abbr>", html)


def test_each_game_has_a_ladder_and_unknown_games_are_404():
    for engine in all_engines():
        assert Client().get(f"/rankings/{engine.slug}/").status_code == 200
    assert Client().get("/rankings/chess/").status_code == 404


def test_the_ladder_shows_ranks_linked_names_ratings_and_provisional_marks():
    rate("ann", 1712.4, matches=25, wins=12)
    rate("bob", 1650.0, matches=4)
    rate("cid", 1650.0, matches=40)
    html = Client().get(f"/rankings/{GAME}/").content.decode()
    assert rows_of(html) == ["ann", "bob", "cid"]
    assert [int(r) for r in re.findall(r'data-testid="rank">(\d+)<', html)] == [1, 2, 2]
    assert 'href="/players/ann/"' in html
    assert ">1712<" in html and "1712.4" not in html
    assert "Chef</td>" in html  # 1712: Chef
    assert len(re.findall(r'class="provisional"', html)) == 1
    assert re.search(r"1650<abbr class=\"provisional\"", html)
    assert '<th scope="col">' in html and "<caption" in html


@pytest.mark.parametrize(
    ("query", "shown"),
    [("page=0", 1), ("page=-2", 1), ("page=abc", 1), ("page=999", 3), ("page=2", 2)],
)
def test_bad_or_out_of_range_pages_show_the_nearest_page(query, shown):
    for i in range(120):
        Rating.objects.create(user=make_user(f"p{i:03}"), game=GAME, value=1000.0 + i)
    html = Client().get(f"/rankings/{GAME}/?{query}").content.decode()
    assert f"Page {shown} of 3" in html
    expected_first = f"p{119 - (shown - 1) * 50:03}"
    assert rows_of(html)[0] == expected_first


def test_pagination_links_keep_the_search():
    for i in range(60):
        Rating.objects.create(user=make_user(f"olive{i}"), game=GAME, value=1500.0 + i)
    html = Client().get(f"/rankings/{GAME}/?q=olive").content.decode()
    assert "q=olive&amp;page=2" in html


def test_search_by_name():
    rate("Margherita", 1600.0)
    rate("ann", 1700.0)
    rate("bob", 1550.0)
    html = Client().get(f"/rankings/{GAME}/?q=marg").content.decode()
    assert rows_of(html) == ["Margherita"]
    assert 'data-testid="rank">2<' in html
    assert 'value="marg"' in html
    empty = Client().get(f"/rankings/{GAME}/?q=nobody").content.decode()
    assert rows_of(empty) == [] and "No player matches" in empty


def test_friends_only_for_a_logged_in_player_includes_themselves():
    me = rate("me", 1500.0)
    pal = rate("pal", 1600.0)
    rate("stranger", 1700.0)
    asker = rate("asker", 1400.0)
    friends.request_friend(me, pal)
    friends.accept(pal, me)
    friends.request_friend(asker, me)  # not accepted: not a friend
    html = logged_in(me).get(f"/rankings/{GAME}/?friends=1").content.decode()
    assert rows_of(html) == ["pal", "me"]
    assert [int(r) for r in re.findall(r'data-testid="rank">(\d+)<', html)] == [2, 3]
    assert 'class="me"' in html
    assert "You are #3" in html
    # Anonymous visitors have no friends list: the whole ladder, and no checkbox.
    anonymous = Client().get(f"/rankings/{GAME}/?friends=1").content.decode()
    assert len(rows_of(anonymous)) == 4
    assert 'name="friends"' not in anonymous


def test_an_htmx_search_gets_only_the_results():
    rate("ann", 1500.0)
    response = Client().get(f"/rankings/{GAME}/?q=ann", HTTP_HX_REQUEST="true")
    html = response.content.decode()
    assert html.lstrip().startswith('<div id="ladder-results"')
    assert "<html" not in html and rows_of(html) == ["ann"]


def test_online_players_are_marked():
    ann = rate("ann", 1500.0)
    rate("bob", 1400.0)
    presence.heartbeat(ann.pk)
    html = Client().get(f"/rankings/{GAME}/").content.decode()
    assert html.count("online now") == 1


def test_the_rankings_page_takes_the_same_queries_for_few_or_many_players():
    me = rate("me", 1500.0)
    for engine in all_engines():
        if engine.slug != GAME:
            Rating.objects.create(user=me, game=engine.slug, value=1500.0)

    def add_players(count: int, start: int) -> None:
        for i in range(start, start + count):
            pal = rate(f"pal{i}", 1000.0 + i * 3, matches=i % 15)
            if i % 2:
                Rating.objects.create(user=pal, game="pizza-party", value=1400.0 + i)
            if i % 3 == 0:
                friends.request_friend(me, pal)
                friends.accept(pal, me)

    client = logged_in(me)
    paths = [
        f"/rankings/{GAME}/",
        f"/rankings/{GAME}/?page=2",
        f"/rankings/{GAME}/?q=pal",
        f"/rankings/{GAME}/?friends=1",
        "/rankings/",
    ]
    add_players(55, 0)  # two pages
    few = [queries(client, path) for path in paths]
    add_players(150, 55)
    many = [queries(client, path) for path in paths]
    assert few == many
    # The session and the viewer; the ladder's generation, the viewer's place, the header's
    # count of friend requests and the page, in one round trip on PostgreSQL (four statements on
    # SQLite); friends only, their ids go with the generation and the page after. The index
    # reads the generations, three games' leaders and the badge. Inside this test's transaction
    # every page is read afresh; outside, a page already read in the same generation is not
    # read again (test_kept_pages).
    postgres = connection.vendor == "postgresql"
    together = [1, 1, 1, 1 + 1] if postgres else [4, 4, 4, 4 + 1]
    assert many == [2 + n for n in together] + [2 + 1 + 3 + 1]


# --- the profile -----------------------------------------------------------------------------
def test_unknown_or_inactive_players_have_no_profile():
    gone = make_user("gone")
    gone.is_active = False
    gone.save()
    assert Client().get("/players/nobody/").status_code == 404
    assert Client().get("/players/gone/").status_code == 404


def test_the_profile_shows_ratings_levels_ranks_charts_and_counts():
    ann, bob = make_user("ann"), make_user("bob")
    ranked_match([ann, bob], seed=1)
    ranked_match([ann, bob], seed=2)
    rating = Rating.objects.get(user=ann, game=GAME)
    html = Client().get("/players/ann/").content.decode()
    row = re.search(r'<tr data-game="part-du-chef">(.*?)</tr>', html, re.S).group(1)
    assert f">{round(rating.value)}<abbr" in row  # provisional: 2 matches
    assert ("Sous-chef" in row) == (1500 <= round(rating.value) < 1700)
    assert re.search(r'data-testid="rank">#[12]<', row)
    assert f'<td class="num">{rating.matches}</td>' in row
    assert f'<td class="num">{rating.wins}</td>' in row
    chart = re.search(r'<svg class="rating-chart".*?</svg>', html, re.S).group(0)
    assert chart.count("<circle") == 2
    assert 'aria-labelledby="history-part-du-chef-title history-part-du-chef-desc"' in html
    assert "Member since" in html


def test_the_profile_lists_recent_matches_with_results_and_replay_links():
    ann, bob, cid = make_user("ann"), make_user("bob"), make_user("cid")
    match = ranked_match([ann, bob, cid], seed=3)
    private = ranked_match([ann, bob], seed=4, private=True)
    html = Client().get("/players/ann/").content.decode()
    assert f'data-match="{match.pk}"' in html
    assert f'data-match="{private.pk}"' not in html
    assert f'href="/tables/{match.pk}/replay/"' in html
    seat = match.seats.get(user=ann)
    assert f"{seat.rank} of 3" in html
    assert 'href="/players/bob/"' in html and 'href="/players/cid/"' in html
    delta = RatingChange.objects.get(match=match, user=ann).delta
    assert f'<span class="delta">{round(delta):+d}</span>' in html
    assert Client().get(f"/tables/{match.pk}/replay/").status_code == 200


def test_a_profile_without_matches_says_so():
    make_user("newbie")
    html = Client().get("/players/newbie/").content.decode()
    assert "No rated match yet." in html
    assert "No finished match yet." in html
    assert "No trophy yet." in html
    assert "rating-chart" not in html


def test_online_now_comes_from_presence():
    ann = make_user("ann")
    assert "Online now" not in Client().get("/players/ann/").content.decode()
    presence.heartbeat(ann.pk)
    assert "Online now" in Client().get("/players/ann/").content.decode()


def friend_buttons(client: Client, name: str) -> list[tuple[str, str]]:
    html = client.get(f"/players/{name}/").content.decode()
    return re.findall(
        r'<form method="post" action="([^"]+)" class="inline">.*?data-testid="friend-button">([^<]+)<',
        html,
        re.S,
    )


def test_the_friend_button_follows_the_friendship():
    ann, bob = make_user("ann"), make_user("bob")
    as_ann, as_bob = logged_in(ann), logged_in(bob)
    assert friend_buttons(Client(), "bob") == []
    assert friend_buttons(as_ann, "ann") == []
    assert friend_buttons(as_ann, "bob") == [("/accounts/friends/bob/request/", "Add as friend")]
    response = as_ann.post("/accounts/friends/bob/request/", {"next": "/players/bob/"})
    assert response.status_code == 302 and response["Location"] == "/players/bob/"
    assert friend_buttons(as_ann, "bob") == [
        ("/accounts/friends/bob/remove/", "Cancel friend request")
    ]
    assert friend_buttons(as_bob, "ann") == [
        ("/accounts/friends/ann/accept/", "Accept friend request"),
        ("/accounts/friends/ann/decline/", "Decline"),
    ]
    as_bob.post("/accounts/friends/ann/accept/")
    assert friend_buttons(as_ann, "bob") == [
        ("/accounts/friends/bob/remove/", "Remove from friends")
    ]
    assert 'name="csrfmiddlewaretoken"' in as_ann.get("/players/bob/").content.decode()


def test_the_profile_takes_the_same_queries_however_much_was_played():
    ann, bob, cid = make_user("ann"), make_user("bob"), make_user("cid")
    # Seen once before: this process drew ann's profile (test_a_profile_never_drawn_here_...).
    Client().get("/players/ann/")
    ranked_match([ann, bob], seed=5)
    client = logged_in(bob)
    few = (queries(client, "/players/ann/"), queries(Client(), "/players/ann/"))
    ranked_match([ann, bob, cid], seed=6)
    ranked_match([ann, cid], seed=7)
    ranked_match([ann, bob], game="pizza-party", seed=8)
    friends.request_friend(bob, ann)
    many = (queries(client, "/players/ann/"), queries(Client(), "/players/ann/"))
    assert few == many
    # The player, and (logged in) the session and the viewer; the standings, recent matches,
    # trophies (and the friendship and the header's count of friend requests) go together on
    # PostgreSQL; a new rated match draws the charts again, reading the history (one query), for
    # the first visitor.
    postgres = connection.vendor == "postgresql"
    assert many == (1 + 2 + (1 if postgres else 5) + 1, 1 + (1 if postgres else 3))
    badge = '<span class="badge" aria-label="1 friend request">1</span>'
    assert badge in logged_in(ann).get("/players/bob/").content.decode()
    assert badge in logged_in(ann).get(f"/rankings/{GAME}/").content.decode()


# --- trophies --------------------------------------------------------------------------------
needs_arena = pytest.mark.skipif(not apps.is_installed("arena"), reason="the arena app is absent")


def make_trophy(user, place: int, name: str, private: bool = False):
    tournament_model = apps.get_model("arena", "Tournament")
    trophy_model = apps.get_model("arena", "Trophy")
    tournament = tournament_model.objects.create(
        game=GAME,
        name=name,
        starts_at=timezone.now() - timedelta(hours=2),
        minutes=60,
        seats=3,
        turn_seconds=30,
        private=private,
    )
    return trophy_model.objects.create(user=user, tournament=tournament, place=place)


@needs_arena
def test_trophies_show_on_the_profile_and_in_the_api():
    ann = make_user("ann")
    friday = make_trophy(ann, 1, "Friday <arena>")
    make_trophy(ann, 3, "Secret club", private=True)
    html = Client().get("/players/ann/").content.decode()
    assert "Place 1 in Friday &lt;arena&gt; (La Part du Chef)" in html
    assert f'href="/arenas/{friday.tournament_id}/"' in html
    assert "Secret club" not in html
    assert [t["name"] for t in trophies_json(ann)] == ["Friday <arena>"]
    assert trophies_json(ann)[0]["place"] == 1 and trophies_json(ann)[0]["game"] == GAME


def test_without_the_arena_app_there_are_no_trophies(settings):
    ann = make_user("ann")
    make_trophy(ann, 1, "Friday arena")
    assert profile_module.trophies_for(ann) != []
    # The site without its arena app (the trophies stay in the database, unread).
    settings.INSTALLED_APPS = [app for app in settings.INSTALLED_APPS if app != "arena"]
    assert not apps.is_installed("arena")
    assert profile_module.trophies_for(ann) == []
    assert "Friday arena" not in Client().get("/players/ann/").content.decode()


# --- the API ---------------------------------------------------------------------------------
def test_the_rankings_api_pages_the_ladder():
    rate("ann", 1712.6, matches=25)
    rate("bob", 1650.0, matches=4)
    rate("cid", 1650.0, matches=40)
    answer = Client().get(f"/api/rankings/{GAME}").json()
    assert answer == {
        "game": GAME,
        "page": 1,
        "pages": 1,
        "players": [
            {"rank": 1, "player": "ann", "elo": 1713, "games": 25, "provisional": False},
            {"rank": 2, "player": "bob", "elo": 1650, "games": 4, "provisional": True},
            {"rank": 2, "player": "cid", "elo": 1650, "games": 40, "provisional": False},
        ],
    }
    assert Client().get("/api/rankings/cafe-fatal?page=1").json()["players"] == []


@pytest.mark.parametrize(
    ("path", "status"),
    [
        (f"/api/rankings/{GAME}?page=abc", 400),
        (f"/api/rankings/{GAME}?page=0", 400),
        (f"/api/rankings/{GAME}?page=2", 404),
        ("/api/rankings/chess", 404),
    ],
)
def test_the_rankings_api_refuses_bad_pages_and_games(path, status):
    rate("ann", 1500.0)
    response = Client().get(path)
    assert response.status_code == status
    assert response.json()["error"]


def test_ratings_and_recent_json_for_the_players_endpoint():
    ann, bob = make_user("ann"), make_user("bob")
    match = ranked_match([ann, bob], seed=9)
    rating = Rating.objects.get(user=ann, game=GAME)
    assert ratings_json(ann) == {
        GAME: {
            "elo": round(rating.value),
            "games": 1,
            "wins": rating.wins,
            "rank": 1 if rating.value >= Rating.objects.get(user=bob).value else 2,
            "provisional": True,
        }
    }
    recent = recent_json(ann)
    assert [r["id"] for r in recent] == [match.pk]
    assert recent[0]["game"] == GAME and recent[0]["mode"] == "ranked"
    assert {p["player"] for p in recent[0]["players"]} == {"ann", "bob"}
    assert recent[0]["rating_delta"] == pytest.approx(
        RatingChange.objects.get(match=match, user=ann).delta, abs=0.05
    )
    assert recent[0]["replay"] == f"/tables/{match.pk}/replay/"
    assert ratings_json(make_user()) == {}


def test_a_search_matching_too_many_players_says_only_the_best_are_shown(monkeypatch):
    from ratings import ladder as ladder_module

    monkeypatch.setattr(ladder_module, "SEARCH_LIMIT", 2)
    for i in range(3):
        rate(f"pal{i}", 1500.0 + i)
    html = Client().get(f"/rankings/{GAME}/?q=pal").content.decode()
    assert "More than 2 players match: the best 2 are shown." in html
    assert html.count('data-testid="rank"') == 2


def test_a_profile_draws_its_recent_matches_once_until_the_player_finishes_another(monkeypatch):
    from players import profile as profile_module

    ann, bob = make_user("ann"), make_user("bob")
    first = ranked_match([ann, bob], seed=5)
    drawn = []
    rows = profile_module.recent_rows_from

    def counted(target, found):
        drawn.append(target.username)
        return rows(target, found)

    monkeypatch.setattr(profile_module, "recent_rows_from", counted)
    pages = [Client().get("/players/ann/").content.decode() for _ in range(2)]
    recent = [
        re.search(r'<section aria-labelledby="recent-title">.*?</section>', p, re.S) for p in pages
    ]
    assert recent[0] and recent[0][0] == recent[1][0] and drawn == ["ann"]
    assert f'data-match="{first.pk}"' in pages[0]
    second = ranked_match([ann, bob], seed=6)
    again = Client().get("/players/ann/").content.decode()
    assert drawn == ["ann", "ann"]
    assert f'data-match="{second.pk}"' in again and f'data-match="{first.pk}"' in again


def test_the_ladder_rows_are_drawn_once_until_what_they_show_changes(monkeypatch):
    from ratings import rendering

    rendering._rendered_rows.cache_clear()  # rows drawn by earlier tests
    ann = rate("ann", 1500.0, matches=3)
    bob = rate("bob", 1400.0)
    drawn = []
    display = rendering.display_rows

    def counted(rows):
        drawn.append(len(rows))
        return display(rows)

    monkeypatch.setattr(rendering, "display_rows", counted)
    path = f"/rankings/{GAME}/"
    first, second = (
        re.search(r"<tbody>.*</tbody>", Client().get(path).content.decode(), re.S)[0]
        for _ in range(2)
    )
    assert first == second and rows_of(first) == ["ann", "bob"] and len(drawn) == 1
    # Each thing a row prints, changed, draws the rows again, and the page shows the change.
    Rating.objects.filter(user=bob).update(value=1600.0)
    assert rows_of(Client().get(path).content.decode()) == ["bob", "ann"]
    Rating.objects.filter(user=ann).update(matches=12)
    assert 'class="provisional"' not in Client().get(path).content.decode()
    presence.heartbeat(ann.pk)
    assert "online now" in Client().get(path).content.decode()
    mine = logged_in(ann).get(path).content.decode()
    assert '<tr data-player="ann" class="me">' in mine
    fr = Client(headers={"accept-language": "fr"}).get(path).content.decode()
    assert "en ligne" in fr.lower()
    assert len(drawn) == 6


def test_a_name_on_the_ladder_is_escaped_in_its_row_and_its_link():
    from ratings import rendering

    rendering._rendered_rows.cache_clear()
    rate("<b>x</b>&'y", 1500.0)
    html = Client().get(f"/rankings/{GAME}/").content.decode()
    assert "<b>x</b>" not in html
    assert '<tr data-player="&lt;b&gt;x&lt;/b&gt;&amp;&#x27;y">' in html
    assert '<a href="/players/%3Cb%3Ex%3C/b%3E&amp;&#x27;y/">&lt;b&gt;x&lt;/b&gt;&amp;' in html


def test_reads_sent_together_give_what_each_gives_alone(django_assert_num_queries):
    from django.contrib.auth import get_user_model

    from players.together import read_together

    rate("ann", 1500.0)
    rate("bob", 1400.0)
    users = get_user_model().objects.order_by("username")
    reads = [
        users.values_list("username", "date_joined"),
        ("SELECT %s, %s", [7, "50% off"]),
        users.filter(username="nobody").values_list("pk"),
    ]
    alone = [list(reads[0]), [(7, "50% off")], []]
    # PostgreSQL gets them in one round trip; SQLite runs one after the other.
    with django_assert_num_queries(1 if connection.vendor == "postgresql" else 3):
        together = read_together(reads)
    assert together == alone
    assert together[0][0][0] == "ann" and together[0][0][1].tzinfo is not None


def test_a_profile_never_drawn_here_reads_its_charts_points_with_its_other_reads():
    from ratings.charts import DRAWN

    ann, bob = make_user("ann"), make_user("bob")
    ranked_match([ann, bob], seed=5)
    client = logged_in(bob)
    drawn_before = client.get("/players/ann/").content.decode()
    DRAWN.clear()  # as in a process that never drew ann's profile, or forgot it
    with CaptureQueriesContext(connection) as captured:
        drawn_afresh = client.get("/players/ann/").content.decode()
    history = [q for q in captured.captured_queries if "ROW_NUMBER()" in q["sql"]]
    assert len(history) == 1 and 'class="rating-chart"' in drawn_afresh
    # The player, the session and the viewer, and one round trip with the history on PostgreSQL.
    if connection.vendor == "postgresql":
        assert len(captured.captured_queries) == 1 + 2 + 1
    assert without_csrf(drawn_afresh) == without_csrf(drawn_before)


def without_csrf(html: str) -> str:
    """The page without its CSRF tokens, which are masked afresh on every response."""
    html = re.sub(r'value="[A-Za-z0-9]{64}"', 'value="token"', html)
    return re.sub(r'"X-CSRFToken": "[A-Za-z0-9]{64}"', '"X-CSRFToken": "token"', html)
