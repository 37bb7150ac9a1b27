"""What a newcomer reads about an arena: scheduled arenas named in their language, and an arena
created to start now shown as starting, not "Scheduled · Starts in 0:00"."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.test import Client
from django.utils import timezone
from django.utils.translation import override

from arena import jobs, rendering, services
from arena.models import Tournament
from tests.site.factories import make_user

pytestmark = pytest.mark.django_db


def scheduled(kind: str = "hourly") -> Tournament:
    start = timezone.now() + timedelta(hours=2)
    return Tournament.objects.create(
        game="pizza-party",
        name=f"{kind.title()} Pizza Party arena",
        starts_at=start,
        minutes=30,
        seats=3,
        turn_seconds=60,
        schedule_key=f"{kind}:pizza-party:{start:%Y-%m-%dT%H:%MZ}",
    )


@pytest.mark.parametrize(
    ("language", "kind", "expected"),
    [
        ("en", "hourly", "Hourly Pizza Party arena"),
        ("fr", "hourly", "Arène horaire de Pizza Party"),
        ("de", "hourly", "Stündliche Pizza Party-Arena"),
        ("it", "hourly", "Arena oraria di Pizza Party"),
        ("fr", "daily", "Arène quotidienne de Pizza Party"),
    ],
)
def test_a_scheduled_arena_is_named_in_the_readers_language(language, kind, expected):
    tournament = scheduled(kind)
    with override(language):
        assert rendering.arena_name(tournament) == expected
    client = Client()
    client.cookies["django_language"] = language
    assert expected in client.get(f"/arenas/{tournament.pk}/").content.decode()
    assert expected in client.get("/arenas/").content.decode()


def test_a_players_own_arena_keeps_the_name_they_gave_it():
    tournament = services.create_tournament(make_user(), "cafe-fatal", name="Hourly fun")
    with override("fr"):
        assert rendering.arena_name(tournament) == "Hourly fun"


def test_the_schedules_english_names_are_what_the_api_answers():
    jobs.create_scheduled_arenas()
    hourly = Tournament.objects.filter(schedule_key__startswith="hourly:").first()
    assert hourly.name == f"Hourly {rendering.game_name(hourly.game)} arena"


def test_an_arena_created_to_start_now_is_starting_not_scheduled_in_zero_minutes():
    tournament = services.create_tournament(make_user(), "part-du-chef")
    assert tournament.status == Tournament.Status.SCHEDULED  # until the worker's next pass
    html = Client().get(f"/arenas/{tournament.pk}/").content.decode()
    assert "<strong>Starting</strong>" in html and "Starts in" not in html
    listing = Client().get("/arenas/").content.decode()
    assert "starting now" in listing
    jobs.start_due_arenas()
    html = Client().get(f"/arenas/{tournament.pk}/").content.decode()
    assert "<strong>Running</strong>" in html


def test_an_arena_announced_for_later_still_counts_down():
    start = timezone.now() + timedelta(hours=1)
    tournament = services.create_tournament(make_user(), "part-du-chef", starts_at=start)
    html = Client().get(f"/arenas/{tournament.pk}/").content.decode()
    assert "<strong>Scheduled</strong>" in html and "Starts in" in html
