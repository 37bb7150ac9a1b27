"""Bots as players in engine tests: they get the seat's view, as on the site."""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

from games.engines import CHANCE, Engine

Player = Callable[[dict[str, Any], int, random.Random], dict[str, Any]]


def bot(engine: Engine, level: int) -> Player:
    """A player (state, seat, rng) -> move: the bot of ``level`` on the seat's view."""

    def play(state: dict[str, Any], seat: int, rng: random.Random) -> dict[str, Any]:
        return engine.bot_move(engine.view(state, seat), rng, level)

    return play


def random_player(engine: Engine) -> Player:
    return engine.random_move


def play_game(
    engine: Engine,
    players: list[Player],
    seed: int,
    options: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """One game from ``seed`` with ``players[seat]`` choosing each seat's moves; every move is
    checked before it is applied. The final state."""
    rng = random.Random(seed)
    state = engine.new_game(len(players), options)
    while not engine.is_over(state):
        seat = rng.choice(engine.to_move(state))
        if seat == CHANCE:
            move = engine.sample_chance(state, rng)
        else:
            move = players[seat](state, seat, rng)
            engine.check(state, seat, move)
        state = engine.apply(state, seat, move)
    return state


Lineup = Callable[[int, int], list[Player]]


def level_against_random(engine: Engine, level: int) -> Lineup:
    """The bot of ``level`` at the hero's seat, random players at the others."""
    return lambda hero, n: [
        bot(engine, level) if s == hero else random_player(engine) for s in range(n)
    ]


def level_against(engine: Engine, level: int, others: int) -> Lineup:
    """The bot of ``level`` at the hero's seat, bots of level ``others`` at the others."""
    return lambda hero, n: [bot(engine, level if s == hero else others) for s in range(n)]


def hero_first_ranks(
    engine: Engine, lineup: Lineup, n: int, games: int, **options: Any
) -> list[list[int]]:
    """The ranks of ``games`` seeded games, the hero's first: the hero sits at seat ``game % n``
    and the list goes on round the table from there."""
    results = []
    for game in range(games):
        hero = game % n
        state = play_game(engine, lineup(hero, n), game, options or None)
        ranks = engine.result(state).ranks
        results.append(ranks[hero:] + ranks[:hero])
    return results


def firsts(results: list[list[int]]) -> int:
    """Games the hero finished first in, alone or shared."""
    return sum(1 for ranks in results if ranks[0] == 1)


def duel_score(results: list[list[int]]) -> tuple[int, int]:
    """(games the hero ranked above the other player, games below) in two-player games."""
    above = sum(1 for hero, other in results if hero < other)
    below = sum(1 for hero, other in results if hero > other)
    return above, below
