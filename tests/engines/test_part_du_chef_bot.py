"""The La Part du Chef bots beat random players."""

from __future__ import annotations

import random

from games.engines import CHANCE
from games.engines.part_du_chef import ENGINE


def bot_wins_against_random_players(seed: int, level: int, n: int = 3) -> bool:
    """One seeded game: the bot sits at seat seed % n, the others play random legal moves.
    A shared first place counts as a win."""
    rng = random.Random(seed)
    state = ENGINE.new_game(n)
    bot_seat = seed % n
    while not ENGINE.is_over(state):
        seat = ENGINE.to_move(state)[0]
        if seat == CHANCE:
            move = ENGINE.sample_chance(state, rng)
        elif seat == bot_seat:
            move = ENGINE.bot_move(state, seat, rng, level)
        else:
            move = ENGINE.random_move(state, seat, rng)
        state = ENGINE.apply(state, seat, move)
    return ENGINE.result(state).ranks[bot_seat] == 1


def test_the_bot_wins_at_least_60_percent_of_300_three_player_games_against_random_players():
    wins = sum(bot_wins_against_random_players(seed, level=1) for seed in range(300))
    # Measured: 289 of 300.
    assert wins >= 180


def test_the_stronger_bot_also_beats_random_players():
    wins = sum(bot_wins_against_random_players(seed, level=2) for seed in range(20))
    assert wins >= 14


def test_the_engine_offers_two_bot_levels():
    assert ENGINE.bot_levels == (1, 2)
