"""How well the Pizza Party bots play, measured on seeded games: the thresholds sit just below
the counts these seeds give, so a bot that plays worse fails them."""

from __future__ import annotations

import random

import pytest

from games.engines import CHANCE, IllegalMove
from games.engines.pizza_party import CELLS, ENGINE
from games.engines.pizza_party_bot import (
    MODEL_LEVEL_2,
    opponent_model,
    outcome_table,
    placement_values,
)

from .bots import (
    bot,
    duel_score,
    firsts,
    hero_first_ranks,
    level_against,
    level_against_random,
    play_game,
)


def test_the_engine_offers_three_bot_levels():
    assert ENGINE.bot_levels == (1, 2, 3)


def test_a_bot_plays_only_on_its_turn():
    with pytest.raises(IllegalMove, match="not your turn"):
        ENGINE.bot_move(ENGINE.view(ENGINE.new_game(3), 1), random.Random(0), 1)
    with pytest.raises(IllegalMove, match="not your turn"):
        ENGINE.bot_move(ENGINE.view(ENGINE.new_game(3), None), random.Random(0), 2)


def test_both_levels_play_whole_games_in_both_variants():
    for seed in range(4):
        n = 2 + seed % 2
        state = play_game(ENGINE, [bot(ENGINE, 1 + (s + seed) % 2) for s in range(n)], seed)
        assert ENGINE.is_over(state)


def test_level_1_wins_most_three_player_games_against_two_random_players():
    ranks = hero_first_ranks(ENGINE, level_against_random(ENGINE, 1), 3, 300)
    # Measured: first (alone or shared) in 281 of 300; a random seat would be about 100.
    assert firsts(ranks) >= 275


def test_level_2_beats_level_1_in_three_player_games():
    ranks = hero_first_ranks(ENGINE, level_against(ENGINE, 2, 1), 3, 30)
    # Measured: level 2 first in 23 of 30 games against two level 1 bots (a third being even);
    # 27 while it also placed for sensible players, which lost it games to random players.
    assert firsts(ranks) >= 21


def test_level_2_wins_three_player_games_against_random_players_as_often_as_level_1():
    ranks = hero_first_ranks(ENGINE, level_against_random(ENGINE, 2), 3, 120)
    # Measured on these seeds: level 2 first in 110 of 120, level 1 in 111. (Level 2 placing for
    # sensible players was first in 111 here too: the gap, 2.6 points over 1,000 games, needs
    # more games than a test plays; the placement rule is tested below.)
    assert firsts(ranks) >= 108


def test_level_2_wins_duels_against_a_random_player_as_often_as_level_1():
    ranks = hero_first_ranks(ENGINE, level_against_random(ENGINE, 2), 2, 120)
    above, below = duel_score(ranks)
    # Measured on these seeds: level 2 ahead in 112 of 120 duels and behind in 3, level 1 111
    # and 3; level 2 placing for sensible players, 106 and 4.
    assert above >= 110 and below <= 4


def test_level_2_beats_level_1_in_duels():
    ranks = hero_first_ranks(ENGINE, level_against(ENGINE, 2, 1), 2, 40)
    above, below = duel_score(ranks)
    # Measured: level 2 ahead in 26 of 40 duels, behind in 14 (when the neutral colour wins,
    # both rank 2: neither is ahead).
    assert above >= 24 and below <= 16


def cut_positions(n: int, seed: int, count: int) -> list[tuple[dict, int]]:
    """Positions of a seeded game between level-2 bots where a seat is to pick its cut."""
    rng = random.Random(seed)
    state, found = ENGINE.new_game(n), []
    while not ENGINE.is_over(state) and len(found) < count:
        seat = rng.choice(ENGINE.to_move(state))
        if seat == CHANCE:
            move = ENGINE.sample_chance(state, rng)
        else:
            if state["phase"] == "cut":
                found.append((state, seat))
            move = ENGINE.bot_move(ENGINE.view(state, seat), rng, 2)
        state = ENGINE.apply(state, seat, move)
    return found


@pytest.mark.parametrize("n", [2, 3])
def test_level_3_foresees_every_cut_level_2_can_pick(n):
    # Level 3's model of a level-2 colour puts MODEL_LEVEL_2 on the faces level 2 may pick
    # (ties shared), so whatever level 2's dice say, its pick is one the model expected.
    for state, seat in cut_positions(n, seed=n, count=12):
        hero = next(c for c in range(n) if c != seat)
        weights = opponent_model(state, outcome_table(state["board"]), hero)[seat]
        floor = (1 - MODEL_LEVEL_2) / 6
        for dice in range(6):
            pick = ENGINE.bot_move(ENGINE.view(state, seat), random.Random(dice), 2)["cut"]
            assert weights[pick - 1] > floor + 0.1


def place_positions(n: int, seed: int, count: int) -> list[tuple[dict, int]]:
    """Positions of a seeded game between a level-2 bot and random players where a seat is to
    add a topping."""
    rng = random.Random(seed)
    state, found = ENGINE.new_game(n), []
    while not ENGINE.is_over(state) and len(found) < count:
        seat = rng.choice(ENGINE.to_move(state))
        if seat == CHANCE:
            move = ENGINE.sample_chance(state, rng)
        elif seat == 0:
            move = ENGINE.bot_move(ENGINE.view(state, seat), rng, 2)
        else:
            if state["phase"] == "add":
                found.append((state, seat))
            move = ENGINE.random_move(state, seat, rng)
        state = ENGINE.apply(state, seat, move)
    return found


@pytest.mark.parametrize("n", [2, 3])
def test_level_2_places_where_the_cut_is_worth_most_against_random_picks(n):
    # Level 2 cannot tell sensible players from random ones, and placing for sensible ones alone
    # lost it games to random players: its cell is always one of level 1's best (against random
    # picks); the sensible model only chooses among those.
    for seed in range(2):
        for state, seat in place_positions(n, seed, count=5):
            values = placement_values(state["board"], seat, state["round"])
            best = max(values.values())
            for dice in range(2):
                move = ENGINE.bot_move(ENGINE.view(state, seat), random.Random(dice), 2)
                cell = next(i for i in values if list(CELLS[i]) == move["place"])
                assert values[cell] >= best - 1e-9
