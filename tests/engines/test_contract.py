"""The engine contract (games/engines/base.py), checked over every registered engine.

Each test is parametrized over ``all_engines()``, so a new game is covered without an edit here.
Games are random playouts from fixed seeds, for every player count and every choice of options.
"""

from __future__ import annotations

import ast
import itertools
import json
import random
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from games.engines import CHANCE, Engine, IllegalMove, SeatRef, Sentence, all_engines
from games.engines.records import export_record, replay

ENGINES = all_engines()
ENGINE_SOURCES = Path(__file__).resolve().parents[2] / "games" / "engines"
GAMES_PER_TABLE = 2
#: Legal moves described per position (the full list of a cut or a take can be huge).
MOVES_DESCRIBED = 12
#: Positions checked per game where a check costs more than the move (views, records, bots).
POSITIONS_PER_GAME = 30


def by_slug(engine: Engine) -> str:
    return engine.slug


def tables(engine: Engine) -> Iterator[tuple[int, dict[str, Any]]]:
    """Every player count with every choice of options the engine accepts for it."""
    names = [spec.name for spec in engine.option_specs]
    for n in range(engine.min_players, engine.max_players + 1):
        for values in itertools.product(*(spec.choices for spec in engine.option_specs)):
            options = dict(zip(names, values, strict=True))
            try:
                engine.normalise_options(n, options)
            except IllegalMove:
                continue
            yield n, options


def playout(engine: Engine, n: int, options: dict[str, Any], seed: int) -> Iterator[tuple]:
    """(state before, seat, move) for every move of one random game, the last state at the end
    as (state, None, None)."""
    rng = random.Random(seed)
    state = engine.new_game(n, options)
    while not engine.is_over(state):
        seat = rng.choice(engine.to_move(state))
        move = engine.random_step(state, seat, rng)
        yield state, seat, move
        state = engine.apply(state, seat, move)
    yield state, None, None


def games(engine: Engine, per_table: int = GAMES_PER_TABLE) -> Iterator[tuple]:
    """(n, options, seed) for ``per_table`` games at every table."""
    for n, options in tables(engine):
        for seed in range(per_table):
            yield n, options, seed


def some_positions(engine: Engine, n: int, options: dict, seed: int) -> list[tuple]:
    """About ``POSITIONS_PER_GAME`` positions spread over one game, its last one included."""
    moves = list(playout(engine, n, options, seed))
    step = max(1, len(moves) // POSITIONS_PER_GAME)
    return moves[-1::-step][::-1]


def marked_templates() -> set[str]:
    """Every literal the engines mark with ``gettext_noop`` (what ``makemessages`` extracts)."""
    marked = set()
    for path in ENGINE_SOURCES.glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call) and getattr(node.func, "id", "") == "gettext_noop":
                marked.add(node.args[0].value)
    return marked


MARKED = marked_templates()


def check_sentence(line: Any, n: int) -> None:
    """A translatable sentence: a marked template, every placeholder filled, seats at the table,
    and the same sentence back from its JSON."""
    assert isinstance(line, Sentence)
    assert line.template in MARKED, line.template
    assert set(re.findall(r"\{(\w+)", line.template)) == set(line.params), line.template
    for value in line.params.values():
        if isinstance(value, Sentence):
            check_sentence(value, n)
        elif isinstance(value, SeatRef):
            assert 0 <= value.seat < n
        else:
            assert isinstance(value, str | int) and not isinstance(value, bool), value
    stored = json.loads(json.dumps(line.as_json()))
    assert Sentence.from_json(stored) == line
    str(line)


def sampled_legal(engine: Engine, state: dict, seat: int, rng: random.Random) -> list[dict]:
    moves = list(itertools.islice(engine.legal(state, seat), 3000))
    return rng.sample(moves, min(MOVES_DESCRIBED, len(moves)))


# --- options ---------------------------------------------------------------------------------------
@pytest.mark.parametrize("engine", ENGINES, ids=by_slug)
def test_every_option_has_a_label_a_label_per_choice_and_help(engine):
    for spec in engine.option_specs:
        assert spec.default in spec.choices
        assert spec.label in MARKED and spec.help in MARKED
        assert len(spec.choice_labels) == len(spec.choices)
        assert set(spec.choice_labels) <= MARKED


@pytest.mark.parametrize("engine", ENGINES, ids=by_slug)
def test_the_options_a_table_offers_are_among_the_engines_options(engine):
    for n in range(engine.min_players, engine.max_players + 1):
        offered = engine.table_options(n)
        assert set(offered) <= set(engine.option_specs)
        # What a table does not offer, the number of players decides: the defaults will do.
        chosen = {spec.name: spec.default for spec in offered}
        engine.normalise_options(n, chosen)


# --- the log -----------------------------------------------------------------------------------------
@pytest.mark.parametrize("engine", ENGINES, ids=by_slug)
def test_every_apply_appends_exactly_one_log_entry(engine):
    for n, options, seed in games(engine):
        for state, seat, move in playout(engine, n, options, seed):
            if seat is not None:
                assert len(engine.apply(state, seat, move)["log"]) == len(state["log"]) + 1


@pytest.mark.parametrize("engine", ENGINES, ids=by_slug)
def test_every_move_played_and_every_legal_move_has_a_translatable_line(engine):
    rng = random.Random(0)
    for n, options, seed in games(engine):
        for state, seat, move in playout(engine, n, options, seed):
            if seat is None:
                continue
            before = json.dumps(state, sort_keys=True)
            line = engine.describe_move(state, seat, move)
            assert json.dumps(state, sort_keys=True) == before
            if seat == CHANCE and line is None:
                continue  # a chance move may need no line (La Part du Chef's deal)
            check_sentence(line, n)
            if seat != CHANCE:
                for other in sampled_legal(engine, state, seat, rng):
                    check_sentence(engine.describe_move(state, seat, other), n)


# --- the end -----------------------------------------------------------------------------------------
@pytest.mark.parametrize("engine", ENGINES, ids=by_slug)
def test_breakdown_rows_have_a_whole_number_for_every_column_and_nothing_else(engine):
    keys = [column.key for column in engine.breakdown_columns]
    assert keys and len(set(keys)) == len(keys)
    assert all(column.label in MARKED for column in engine.breakdown_columns)
    for n, options, seed in games(engine):
        *_, (state, _, _) = playout(engine, n, options, seed)
        rows = engine.breakdown(state)
        assert len(rows) == n
        for row in rows:
            assert list(row) == keys
            assert all(isinstance(v, int) and not isinstance(v, bool) for v in row.values())


# --- simultaneous steps ------------------------------------------------------------------------------
@pytest.mark.parametrize("engine", ENGINES, ids=by_slug)
def test_a_simultaneous_step_is_open_exactly_while_seats_move_in_secret(engine):
    """While a step is open its seats move and nothing else does; when several seats may move
    at once a step is open; two steps in a row have different ids."""
    for n, options, seed in games(engine):
        seen: list[str] = []
        for state, seat, _ in playout(engine, n, options, seed):
            step = engine.simultaneous_step(state)
            movers = engine.to_move(state)
            if len([s for s in movers if s != CHANCE]) > 1:
                assert step is not None
            if step is None:
                continue
            assert CHANCE not in movers and movers
            if not seen or seen[-1] != step:
                assert step not in seen, "a step id came back"
                seen.append(step)
            if seat is None:
                raise AssertionError("the game ended with a step open")


# --- what a seat may see -----------------------------------------------------------------------------
def viewers(n: int) -> list[int | None]:
    return [*range(n), None]


def seen_by(engine: Engine, state: dict, viewer: int | None, n: int) -> tuple[str, str]:
    """What ``viewer`` gets of ``state``: its view and its record, as JSON."""
    record = export_record(engine, state, [f"p{i}" for i in range(n)], viewer)
    return json.dumps(engine.view(state, viewer), sort_keys=True), json.dumps(
        record, sort_keys=True
    )


@pytest.mark.parametrize("engine", ENGINES, ids=by_slug)
def test_redealing_what_a_seat_cannot_see_changes_nothing_it_gets(engine):
    rng = random.Random(1)
    for n, options, seed in games(engine):
        for state, seat, _ in some_positions(engine, n, options, seed):
            for viewer in viewers(n):
                twin = engine.redeal_hidden(state, viewer, rng)
                assert seen_by(engine, twin, viewer, n) == seen_by(engine, state, viewer, n)
                # The twin is a state of the same game: it goes on as the real one would.
                assert engine.to_move(twin) == engine.to_move(state)
                if seat is not None and seat != CHANCE and seat == viewer:
                    move = engine.random_move(state, seat, rng)
                    engine.apply(twin, seat, move)


@pytest.mark.parametrize("engine", ENGINES, ids=by_slug)
def test_a_state_sampled_from_a_view_shows_that_same_view(engine):
    rng = random.Random(2)
    for n, options, seed in games(engine):
        for state, _, _ in some_positions(engine, n, options, seed):
            for viewer in range(n):
                view = engine.view(state, viewer)
                sample = engine.sample_state(view, rng)
                assert engine.view(sample, viewer) == view
                assert engine.to_move(sample) == engine.to_move(state)


# --- records -----------------------------------------------------------------------------------------
@pytest.mark.parametrize("engine", ENGINES, ids=by_slug)
def test_the_record_of_a_finished_game_replays_to_the_same_state_and_result(engine):
    for n, options, seed in games(engine):
        *_, (final, _, _) = playout(engine, n, options, seed)
        for viewer in viewers(n):
            record = json.loads(json.dumps(export_record(engine, final, ["p"] * n, viewer)))
            _, replayed = replay(record)
            assert engine.result(replayed) == engine.result(final)
            assert engine.breakdown(replayed) == engine.breakdown(final)


# --- bots --------------------------------------------------------------------------------------------
#: Positions per game where every bot level plays (the searching levels take a while).
BOT_POSITIONS = 2


def bot_positions(engine: Engine) -> Iterator[tuple[dict, int]]:
    """A few positions of one game per table where a seat (not chance) is to move."""
    rng = random.Random(3)
    for n, options, seed in games(engine, per_table=1):
        positions = [
            (state, seat)
            for state, seat, _ in playout(engine, n, options, seed)
            if seat is not None and seat != CHANCE
        ]
        yield from rng.sample(positions, min(BOT_POSITIONS, len(positions)))


def bot_cases() -> list[tuple[Engine, int]]:
    return [(engine, level) for engine in ENGINES for level in engine.bot_levels]


@pytest.mark.parametrize(
    "engine, level", bot_cases(), ids=[f"{e.slug}-{level}" for e, level in bot_cases()]
)
def test_every_bot_level_plays_a_legal_move_and_only_from_what_its_seat_sees(engine, level):
    """The honesty test: re-deal everything the seat cannot see and the bot's decision stays
    the same (same seed), because it never gets more than the seat's view. Level 3 searches a
    fixed number of worlds here (tests/conftest.py), so its decision is reproducible too."""
    redeal = random.Random(4)
    for state, seat in bot_positions(engine):
        move = engine.bot_move(engine.view(state, seat), random.Random(5), level)
        engine.check(state, seat, move)
        for _ in range(REDEALS):
            twin = engine.redeal_hidden(state, seat, redeal)
            assert engine.bot_move(engine.view(twin, seat), random.Random(5), level) == move


#: How many different re-deals each bot decision must shrug off.
REDEALS = 2


@pytest.mark.parametrize("engine", ENGINES, ids=by_slug)
def test_an_engine_offers_bot_levels_starting_at_one(engine):
    assert engine.bot_levels and engine.bot_levels[0] == 1
    assert list(engine.bot_levels) == sorted(set(engine.bot_levels))


@pytest.mark.parametrize("engine", ENGINES, ids=by_slug)
def test_a_playout_move_is_a_legal_move_of_the_seat_to_move(engine):
    """``playout_move`` (the analysis's playouts; a random move by default) plays by the rules."""
    rng = random.Random(6)
    for n, options, seed in games(engine, per_table=1):
        for state, seat, _ in some_positions(engine, n, options, seed):
            if seat is not None and seat != CHANCE:
                engine.check(state, seat, engine.playout_move(state, seat, rng))


def scores_of_a_random_game_by_apply(engine: Engine, state: dict, rng: random.Random) -> list:
    while not engine.is_over(state):
        seat = rng.choice(engine.to_move(state))
        state = engine.apply(state, seat, engine.random_step(state, seat, rng))
    return list(engine.result(state).scores)


@pytest.mark.parametrize("engine", ENGINES, ids=by_slug)
def test_a_random_playout_ends_with_the_scores_of_the_same_random_game_played_by_apply(engine):
    """``random_playout`` (the searches' and the benchmark's playouts, on a lean state where an
    engine has one) scores exactly what the same seeded random game gives through ``apply``, from
    the start and from positions inside a game, and leaves the state it was given untouched."""
    for n, options, seed in games(engine, per_table=3):
        for state, seat, _ in some_positions(engine, n, options, seed)[::4]:
            if seat is None:
                continue
            before = json.dumps(state, sort_keys=True)
            expected = scores_of_a_random_game_by_apply(engine, state, random.Random(seed + 7))
            assert engine.random_playout(state, random.Random(seed + 7)) == expected
            assert json.dumps(state, sort_keys=True) == before
