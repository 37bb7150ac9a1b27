"""The admin shows game data and changes none of it: matches, seats, moves, ratings, tokens, arenas,
entries and the rest change only through the services."""

from __future__ import annotations

from html.parser import HTMLParser

import pytest
from django.contrib import admin
from django.contrib.auth import get_user_model
from django.forms.models import model_to_dict
from django.test import Client
from django.urls import reverse

from arena import jobs
from arena import services as arena_services
from arena.models import ArenaMatch, Entry, Tournament
from games import chat
from games import services as games_services
from games.models import Match, Move, Seat
from players import friends
from players.models import ApiToken
from ratings.models import Rating, RatingChange
from tests.arena.builders import end_arena_now

from .factories import make_user, play_to_the_end

pytestmark = pytest.mark.django_db

#: The apps whose data only their services may write.
GAME_DATA_APPS = {"games", "ratings", "arena", "players"}


def game_data_models() -> list:
    return [m for m in admin.site._registry if m._meta.app_label in GAME_DATA_APPS]


@pytest.fixture
def staff() -> Client:
    user = get_user_model().objects.create_superuser("chef", "chef@example.com", "pw-staff-123")
    client = Client()
    client.force_login(user)
    return client


@pytest.fixture
def world():
    """One of everything: a finished arena (entries, tables, results, trophies, ratings, rating
    changes), a token, a friendship, an invitation and a chat line."""
    tournament = arena_services.create_tournament(make_user(), "part-du-chef", seats=2)
    players = [make_user(), make_user()]
    for user in players:
        arena_services.join(user, tournament.pk)
    jobs.start_due_arenas()
    jobs.seat_tournament(tournament.pk)
    table = ArenaMatch.objects.get(tournament=tournament)
    play_to_the_end(table.match, [s.user for s in table.match.seats.select_related("user")])
    end_arena_now(tournament)
    assert jobs.finish_ended_arenas() == 1  # trophies
    ApiToken.issue(players[0], "bot")
    friends.request_friend(players[0], players[1])
    friends.accept(players[1], players[0])
    table = games_services.create_table(players[0], "part-du-chef", seats=3)
    games_services.invite_friend(players[0], table.pk, players[1])
    chat.post(players[0], table.pk, "welcome")
    for model in game_data_models():
        assert model.objects.exists(), model
    return tournament


def url(model, action: str, *args) -> str:
    return reverse(f"admin:{model._meta.app_label}_{model._meta.model_name}_{action}", args=args)


def test_game_data_is_registered_in_the_admin():
    registered = set(admin.site._registry)
    assert {Match, Seat, Move, Rating, RatingChange, ApiToken, Tournament, Entry} <= registered


def test_every_game_data_page_opens_for_staff(staff, world):
    for model in game_data_models():
        assert staff.get(url(model, "changelist")).status_code == 200, model
        row = model.objects.first()
        assert staff.get(url(model, "change", row.pk)).status_code == 200, model


def test_staff_can_neither_add_nor_delete_game_data(staff, world):
    for model in game_data_models():
        row = model.objects.first()
        assert staff.get(url(model, "add")).status_code == 403, model
        assert staff.post(url(model, "add"), {}).status_code == 403, model
        assert staff.post(url(model, "delete", row.pk), {"post": "yes"}).status_code == 403, model
        assert model.objects.filter(pk=row.pk).exists()
        changelist = staff.post(
            url(model, "changelist"),
            {"action": "delete_selected", "_selected_action": [row.pk], "post": "yes"},
        )
        assert changelist.status_code in (200, 302) and model.objects.filter(pk=row.pk).exists()


class ChangeForm(HTMLParser):
    """The fields a browser would post back from an admin change page."""

    def __init__(self) -> None:
        super().__init__()
        self.fields: dict[str, str] = {}
        self._select: str | None = None
        self._textarea: str | None = None

    def handle_starttag(self, tag: str, attrs: list) -> None:
        a = dict(attrs)
        if tag == "input" and a.get("name") and a.get("type") not in ("submit", "checkbox"):
            self.fields[a["name"]] = a.get("value") or ""
        elif tag == "input" and a.get("type") == "checkbox" and "checked" in a:
            self.fields[a["name"]] = "on"
        elif tag == "select":
            self._select = a.get("name")
        elif tag == "option" and self._select and "selected" in a:
            self.fields[self._select] = a.get("value") or ""
        elif tag == "textarea":
            self._textarea = a.get("name")
            self.fields[self._textarea] = ""

    def handle_endtag(self, tag: str) -> None:
        if tag == "select":
            self._select = None
        elif tag == "textarea":
            self._textarea = None

    def handle_data(self, data: str) -> None:
        if self._textarea:
            self.fields[self._textarea] += data


def raised(value: str) -> str:
    """A number made larger (what a staff member giving points would type); anything else kept."""
    try:
        return str(int(value) + 1000)
    except ValueError:
        return value


def relations(model) -> set[str]:
    return {f.name for f in model._meta.fields if f.is_relation}


def test_submitting_a_change_page_with_every_number_raised_changes_no_game_data(staff, world):
    for model in game_data_models():
        row = model.objects.first()
        page = ChangeForm()
        page.feed(staff.get(url(model, "change", row.pk)).content.decode())
        before = model_to_dict(row)
        links = relations(model)
        forged = {n: v if n in links else raised(v) for n, v in page.fields.items()}
        staff.post(url(model, "change", row.pk), {**forged, "_save": "Save"})
        row.refresh_from_db()
        assert model_to_dict(row) == before, model


def test_staff_cannot_give_an_entry_points_through_the_admin(staff, world):
    entry = Entry.objects.filter(tournament=world).order_by("-points").first()
    points = entry.points
    response = staff.post(
        url(Entry, "change", entry.pk),
        {"tournament": world.pk, "user": entry.user_id, "points": points + 50, "matches": 9},
    )
    assert response.status_code == 403
    entry.refresh_from_db()
    assert entry.points == points


def test_staff_cannot_change_a_match_through_the_admin(staff, world):
    match = Match.objects.get(arena__tournament=world)
    before = model_to_dict(match)
    response = staff.post(
        url(Match, "change", match.pk),
        {"status": "playing", "version": 1, "seats_count": 5, "state": "{}", "game": "x"},
    )
    assert response.status_code == 403
    match.refresh_from_db()
    assert model_to_dict(match) == before


def test_staff_may_rename_an_arena_and_nothing_else(staff, world):
    world.refresh_from_db()
    before = model_to_dict(world)
    response = staff.post(
        url(Tournament, "change", world.pk),
        {"name": "Friday pizza night", "minutes": 999, "status": "scheduled", "private": "on"},
    )
    assert response.status_code == 302
    world.refresh_from_db()
    assert model_to_dict(world) == {**before, "name": "Friday pizza night"}


def test_a_running_matchs_seed_state_and_chance_moves_stay_hidden_in_the_admin(staff):
    from .factories import started_table

    match, _users = started_table(players=2)
    page = staff.get(url(Match, "change", match.pk)).content.decode()
    assert match.seed not in page and "hidden while the match runs" in page
    chance = Move.objects.filter(match=match, seat=-1).first()
    page = staff.get(url(Move, "change", chance.pk)).content.decode()
    assert "hidden while the match runs" in page
    listing = staff.get(url(Move, "changelist")).content.decode()
    assert str(chance.payload) not in listing


def test_staff_may_revoke_tokens(staff, world):
    token = ApiToken.objects.first()
    staff.post(url(ApiToken, "changelist"), {"action": "revoke", "_selected_action": [token.pk]})
    token.refresh_from_db()
    assert token.revoked
