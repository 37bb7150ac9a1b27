"""The schedule in a tiny notation: each planned arena as "HH:MM kind game minutes"."""

from __future__ import annotations

from datetime import datetime, timedelta

import pytest

from arena.schedule import DAILY, GameSlot, occurrence_key, plan

CHEF = GameSlot("part-du-chef", "La Part du Chef", 3)
PIZZA = GameSlot("pizza-party", "Pizza Party", 3)


def at(text: str) -> datetime:
    return datetime.fromisoformat(f"2030-06-01T{text}:00+00:00")


def notation(games, now: str, hours: int = 6) -> list[str]:
    return [
        f"{o.starts_at:%H:%M} {o.key.split(':')[0]} {o.game} {o.minutes}"
        for o in plan(games, at(now), timedelta(hours=hours))
    ]


def test_an_hourly_arena_on_every_hour_ahead():
    assert notation([CHEF], "08:10", hours=4) == [
        "09:00 hourly part-du-chef 30",
        "10:00 hourly part-du-chef 30",
        "11:00 hourly part-du-chef 30",
        "12:00 hourly part-du-chef 30",
    ]


def test_the_daily_arena_replaces_the_hourly_ones_it_overlaps():
    assert notation([CHEF], "17:30") == [
        "18:00 hourly part-du-chef 30",
        "19:00 daily part-du-chef 120",
        "21:00 hourly part-du-chef 30",
        "22:00 hourly part-du-chef 30",
        "23:00 hourly part-du-chef 30",
    ]


def test_an_hourly_arena_is_left_out_even_when_the_daily_one_starts_beyond_the_horizon():
    # 19:00 is outside [13:00, 19:00) but its 2 hours cover the 20:00 hourly of a later plan;
    # the 18:00 hourly ends at 18:30 and stays.
    assert notation([CHEF], "13:00") == [f"{h}:00 hourly part-du-chef 30" for h in range(13, 19)]
    assert "20:00 hourly part-du-chef 30" not in notation([CHEF], "15:00")


def test_every_game_has_its_own_arenas():
    assert notation([CHEF, PIZZA], "08:10", hours=2) == [
        "09:00 hourly part-du-chef 30",
        "09:00 hourly pizza-party 30",
        "10:00 hourly part-du-chef 30",
        "10:00 hourly pizza-party 30",
    ]


def test_an_arena_starting_now_is_planned_and_one_that_started_is_not():
    assert notation([CHEF], "09:00", hours=1) == ["09:00 hourly part-du-chef 30"]
    later = plan([CHEF], at("09:00") + timedelta(seconds=1), timedelta(hours=1))
    assert [o.starts_at for o in later] == [at("10:00")]


def test_plans_made_at_different_times_agree_on_every_arena_they_share():
    early = {o.key: o for o in plan([CHEF, PIZZA], at("12:05"))}
    late = {o.key: o for o in plan([CHEF, PIZZA], at("15:55"))}
    shared = set(early) & set(late)
    assert shared
    assert all(early[key] == late[key] for key in shared)


def test_the_key_names_the_rule_the_game_and_the_start_in_utc():
    paris = datetime.fromisoformat("2030-06-01T23:00:00+02:00")
    assert occurrence_key(DAILY, "part-du-chef", paris) == "daily:part-du-chef:2030-06-01T21:00Z"
    keys = [o.key for o in plan([CHEF, PIZZA], at("00:00"), timedelta(days=2))]
    assert len(keys) == len(set(keys))


def test_the_plan_crosses_midnight():
    assert notation([CHEF], "23:10", hours=2) == [
        "00:00 hourly part-du-chef 30",
        "01:00 hourly part-du-chef 30",
    ]


def test_a_naive_time_is_refused():
    with pytest.raises(ValueError):
        plan([CHEF], datetime(2030, 6, 1, 12, 0))
