"""The tournaments endpoints of spec/api.md."""

from __future__ import annotations

import json
from datetime import timedelta

import pytest
from django.test import Client
from django.utils import timezone

from arena import jobs
from arena.models import Entry, Tournament
from players.models import ApiToken
from tests.site.factories import make_user

from .builders import end_arena_now, play_tables, running_arena

pytestmark = pytest.mark.django_db

ARENA_KEYS = {
    "id",
    "game",
    "name",
    "status",
    "starts_at",
    "ends_at",
    "seats",
    "standings",
    "tables",
}


def bearer(user) -> dict[str, str]:
    _, raw = ApiToken.issue(user, "test")
    return {"HTTP_AUTHORIZATION": f"Bearer {raw}"}


def post(path: str, user=None, data=None):
    body = json.dumps(data) if data is not None else ""
    headers = bearer(user) if user is not None else {}
    return Client().post(path, body, content_type="application/json", **headers)


def get(path: str, user=None):
    return Client().get(path, **(bearer(user) if user is not None else {}))


def test_creating_an_arena_answers_201_with_the_arena():
    ann = make_user()
    answer = post(
        "/api/tournaments",
        ann,
        {
            "game": "pizza-party",
            "name": "Friday pizzas",
            "starts_at": "2030-06-01T18:00:00Z",
            "minutes": 45,
            "seats": 2,
            "turn_seconds": 20,
            "options": {},
            "private": False,
        },
    )
    assert answer.status_code == 400  # 2030 is more than 30 days ahead
    starts = (timezone.now() + timedelta(hours=1)).replace(microsecond=0)
    answer = post(
        "/api/tournaments",
        ann,
        {"game": "pizza-party", "name": "Friday pizzas", "starts_at": starts.isoformat()},
    )
    assert answer.status_code == 201, answer.json()
    data = answer.json()
    assert set(data) == ARENA_KEYS
    assert data["status"] == "scheduled" and data["seats"] == 3
    assert data["standings"] == [] and data["tables"] == []
    assert data["starts_at"] == starts.isoformat()
    assert data["ends_at"] == (starts + timedelta(minutes=30)).isoformat()
    tournament = Tournament.objects.get(pk=data["id"])
    assert tournament.created_by == ann and tournament.turn_seconds == 30


def test_an_arena_without_a_start_starts_now_with_the_defaults():
    data = post("/api/tournaments", make_user(), {"game": "part-du-chef"}).json()
    assert data["name"] == "La Part du Chef arena"
    jobs.start_due_arenas()
    assert get(f"/api/tournaments/{data['id']}").json()["status"] == "running"


@pytest.mark.parametrize(
    ("body", "words"),
    [
        ({"game": "chess"}, "no game"),
        ({}, "Name the game"),
        ({"game": "part-du-chef", "colour": "red"}, "Unknown field"),
        ({"game": "part-du-chef", "minutes": "ten"}, "whole number"),
        ({"game": "part-du-chef", "minutes": 1}, "between"),
        ({"game": "part-du-chef", "seats": 9}, "2 to 5 players"),
        ({"game": "part-du-chef", "seats": True}, "whole number"),
        ({"game": "part-du-chef", "turn_seconds": 5}, "between"),
        ({"game": "part-du-chef", "starts_at": "tomorrow"}, "ISO 8601"),
        ({"game": "part-du-chef", "starts_at": 12}, "ISO 8601"),
        ({"game": "part-du-chef", "starts_at": "2020-01-01T00:00:00Z"}, "past"),
        ({"game": "part-du-chef", "starts_at": "2031-01-01T10:00:00"}, "time zone"),
        ({"game": "part-du-chef", "private": "yes"}, "true or false"),
        ({"game": "part-du-chef", "name": "  "}, "name"),
        ({"game": "part-du-chef", "name": "x" * 101}, "at most"),
        ({"game": "part-du-chef", "options": {"colour": 1}}, "no option"),
        ({"game": "part-du-chef", "options": []}, "options"),
    ],
)
def test_bad_arenas_get_400_with_a_sentence(body, words):
    answer = post("/api/tournaments", make_user(), body)
    assert answer.status_code == 400
    assert words.lower() in answer.json()["error"].lower()


def test_a_body_that_is_not_json_gets_400_and_no_token_gets_401():
    client = Client()
    user = make_user()
    answer = client.post(
        "/api/tournaments", "{oops", content_type="application/json", **bearer(user)
    )
    assert answer.status_code == 400
    assert post("/api/tournaments", None, {"game": "part-du-chef"}).status_code == 401
    assert post("/api/tournaments/1/join").status_code == 401


def test_a_player_may_not_announce_arenas_without_end():
    ann = make_user()
    for _ in range(3):
        assert post("/api/tournaments", ann, {"game": "part-du-chef"}).status_code == 201
    answer = post("/api/tournaments", ann, {"game": "part-du-chef"})
    assert answer.status_code == 409 and "wait" in answer.json()["error"]
    staff = make_user()
    staff.is_staff = True
    staff.save()
    for _ in range(4):
        assert post("/api/tournaments", staff, {"game": "part-du-chef"}).status_code == 201


def test_the_list_shows_running_upcoming_and_recent_public_arenas():
    running, _users = running_arena(players=2, seats=2)
    upcoming = post(
        "/api/tournaments",
        make_user(),
        {"game": "cafe-fatal", "starts_at": (timezone.now() + timedelta(hours=2)).isoformat()},
    ).json()
    finished, _ = running_arena(players=2, seats=2)
    end_arena_now(finished)
    jobs.finish_ended_arenas()
    hidden = post("/api/tournaments", make_user(), {"game": "part-du-chef", "private": True})
    listed = get("/api/tournaments").json()["tournaments"]
    assert [(t["id"], t["status"]) for t in listed] == [
        (running.pk, "running"),
        (upcoming["id"], "scheduled"),
        (finished.pk, "finished"),
    ]
    assert listed[0]["players"] == 2
    assert hidden.json()["id"] not in [t["id"] for t in listed]


def test_an_arena_shows_its_standings_and_its_tables_newest_first():
    tournament, users = running_arena(players=4, seats=2)
    jobs.seat_waiting_players()
    play_tables(tournament)
    jobs.seat_waiting_players()
    data = get(f"/api/tournaments/{tournament.pk}").json()
    assert set(data) == ARENA_KEYS
    assert [row["rank"] for row in data["standings"]] == [1, 2, 3, 4]
    assert {row["player"] for row in data["standings"]} == {u.username for u in users}
    assert set(data["standings"][0]) == {"rank", "player", "points", "matches", "fire", "paused"}
    points = [row["points"] for row in data["standings"]]
    assert points == sorted(points, reverse=True) and sum(points) == 4
    assert len(data["tables"]) == 4
    assert [t["status"] for t in data["tables"]] == ["playing", "playing", "finished", "finished"]
    assert data["tables"][0]["id"] > data["tables"][2]["id"]
    assert all(len(t["players"]) == 2 for t in data["tables"])
    table = get(f"/api/tables/{data['tables'][0]['id']}", users[0]).json()
    assert table["mode"] == "ranked"


def test_join_pause_resume_and_withdraw():
    tournament, _users = running_arena(players=1, seats=2)
    bob = make_user()
    base = f"/api/tournaments/{tournament.pk}"
    assert post(f"{base}/pause", bob).status_code == 403
    joined = post(f"{base}/join", bob)
    assert joined.status_code == 200
    assert bob.username in [row["player"] for row in joined.json()["standings"]]
    assert post(f"{base}/join", bob).status_code == 200  # joining twice changes nothing
    assert Entry.objects.filter(user=bob).count() == 1

    paused = post(f"{base}/pause", bob).json()
    row = next(r for r in paused["standings"] if r["player"] == bob.username)
    assert row["paused"] is True
    assert jobs.seat_waiting_players() == 0
    resumed = post(f"{base}/resume", bob).json()
    assert not next(r for r in resumed["standings"] if r["player"] == bob.username)["paused"]
    post(f"{base}/withdraw", bob)
    assert Entry.objects.get(user=bob).withdrawn
    post(f"{base}/join", bob)
    assert jobs.seat_waiting_players() == 1


def test_a_private_arena_needs_its_invitation():
    owner, guest = make_user(), make_user()
    created = post("/api/tournaments", owner, {"game": "part-du-chef", "private": True}).json()
    base = f"/api/tournaments/{created['id']}"
    code = created["invite"]
    assert get(base, guest).status_code == 404
    assert get(base).status_code == 404
    assert post(f"{base}/join", guest).status_code == 404
    assert post(f"{base}/join", guest, {"invite": "wrong"}).status_code == 404
    assert get(f"{base}?invite={code}", guest).status_code == 200
    assert "invite" not in get(f"{base}?invite={code}", guest).json()
    assert post(f"{base}/join", guest, {"invite": code}).status_code == 200
    assert get(base, guest).json()["invite"] == code  # a player of the arena may share it
    assert get(base, owner).status_code == 200


def test_missing_and_finished_arenas():
    user = make_user()
    assert get("/api/tournaments/999999").status_code == 404
    assert post("/api/tournaments/999999/join", user).status_code == 404
    tournament, _ = running_arena(players=2, seats=2)
    end_arena_now(tournament)
    jobs.finish_ended_arenas()
    answer = post(f"/api/tournaments/{tournament.pk}/join", user)
    assert answer.status_code == 409 and "finished" in answer.json()["error"]
    assert get("/api/tournaments/1/join").status_code == 405
