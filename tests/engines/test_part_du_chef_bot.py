"""How well the La Part du Chef bots play, measured on seeded games: the thresholds sit just
below the counts these seeds give, so a bot that plays worse fails them."""

from __future__ import annotations

from games.engines.part_du_chef import ENGINE

from .bots import duel_score, firsts, hero_first_ranks, level_against, level_against_random


def test_the_engine_offers_three_bot_levels():
    assert ENGINE.bot_levels == (1, 2, 3)


def test_level_1_wins_most_three_player_games_against_two_random_players():
    ranks = hero_first_ranks(ENGINE, level_against_random(ENGINE, 1), 3, 300)
    # Measured: first (alone or shared) in 295 of 300; a random seat would be about 100.
    assert firsts(ranks) >= 289


def test_level_2_beats_level_1_head_to_head():
    ranks = hero_first_ranks(ENGINE, level_against(ENGINE, 2, 1), 2, 24)
    above, below = duel_score(ranks)
    # Measured: level 2 ahead in 19 of 24 two-player games, behind in 5. (At three players,
    # one level 2 against two level 1 bots was first in 27 of 60 games, a third being even.)
    assert above >= 17 and below <= 7
