"""Game records (``game-record/1``): export from any state, import, replay through the engine."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .base import CHANCE, RECORD_FORMAT, Engine, IllegalMove, MalformedRecord, Move, State
from .registry import get_engine


@dataclass
class ReplayError(Exception):
    """A record that cannot be replayed: ``index`` is the move's index in ``moves`` (or a header
    field such as ``"deal"``) and ``reason`` says why."""

    index: int | str
    reason: str

    def __str__(self) -> str:
        where = f"move {self.index}" if isinstance(self.index, int) else self.index
        return f"{where}: {self.reason}"


def export_record(
    engine: Engine, state: State, players: list[str], viewer: int | None = None
) -> dict[str, Any]:
    """The record of a game so far, as ``viewer`` may see it (None: a spectator; hidden facts
    such as unrevealed pizzas or secret picks are left out until the game is over)."""
    final = engine.is_over(state)
    moves = []
    for seat, move in state["log"]:
        entry = engine.record_move(seat, move, viewer, final)
        if entry is not None:
            moves.append(entry)
    return {
        "format": RECORD_FORMAT,
        "game": engine.slug,
        "players": list(players),
        "options": dict(state["options"]),
        **engine.record_header(state, viewer),
        "moves": moves,
    }


def parse_record(record: Any) -> tuple[Engine, list[str], dict[str, Any], list[tuple[int, Move]]]:
    """Check a record's shape and return its engine, players, options and moves (header moves
    first). Raises MalformedRecord or ReplayError."""
    if not isinstance(record, dict):
        raise MalformedRecord("a game record must be a JSON object")
    if record.get("format") != RECORD_FORMAT:
        raise MalformedRecord(f"the record's 'format' must be {RECORD_FORMAT!r}")
    try:
        engine = get_engine(record.get("game"))
    except KeyError as error:
        raise MalformedRecord(str(error.args[0])) from None
    players = record.get("players")
    if not isinstance(players, list) or not all(isinstance(p, str) for p in players):
        raise MalformedRecord("'players' must be a list of names")
    options = record.get("options", {})
    if not isinstance(options, dict):
        raise MalformedRecord("'options' must be an object")
    moves = record.get("moves")
    if not isinstance(moves, list):
        raise MalformedRecord("'moves' must be a list")
    entries = [engine.parse_record_move(entry, index) for index, entry in enumerate(moves)]
    return engine, players, options, entries


def replay(record: Any) -> tuple[Engine, State]:
    """Replay a record through its engine; the state it reaches. Raises MalformedRecord when the
    record is not a record at all, ReplayError naming the first move the rules refuse."""
    engine, players, options, entries = parse_record(record)
    try:
        state = engine.new_game(len(players), options)
    except IllegalMove as error:
        raise MalformedRecord(str(error)) from None
    for label, seat, move in engine.header_moves(record, len(players)):
        state = _apply_or_explain(engine, state, seat, move, label)
    for index, (seat, move) in enumerate(entries):
        state = _apply_or_explain(engine, state, seat, move, index)
    return engine, state


def _apply_or_explain(
    engine: Engine, state: State, seat: int, move: Move, where: int | str
) -> State:
    if engine.is_over(state):
        raise ReplayError(where, "the game is already over")
    due = engine.to_move(state)
    if seat == CHANCE and CHANCE not in due:
        raise ReplayError(where, "no chance move is due here")
    if seat != CHANCE and seat not in due:
        if CHANCE in due:
            raise ReplayError(where, "a chance move is due here, not a player's move")
        raise ReplayError(where, f"it is not seat {seat}'s turn")
    try:
        return engine.apply(state, seat, move)
    except IllegalMove as error:
        raise ReplayError(where, str(error)) from None
