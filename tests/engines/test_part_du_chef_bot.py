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


def test_level_3_models_the_others_answer_in_this_round_the_same_in_every_world():
    """Level 3 works out the rest of the round (level 1's takes) once per candidate and replays
    it in every re-dealt world: that is only sound if those takes read nothing a world re-deals."""
    import random

    from games.engines import CHANCE
    from games.engines.part_du_chef_bot import _rest_of_round, ranked_moves

    rng = random.Random(11)
    state = ENGINE.new_game(3)
    state = ENGINE.apply(state, CHANCE, ENGINE.sample_chance(state, rng))
    checked = 0
    while not ENGINE.is_over(state) and state["phase"] != "chillies":
        seat = ENGINE.to_move(state)[0]
        view = ENGINE.view(state, seat)
        move = ranked_moves(ENGINE.sample_state(view, rng), seat)[0][1]
        answers = {
            repr(_rest_of_round(ENGINE.advance(ENGINE.sample_state(view, rng), seat, move)))
            for _ in range(3)
        }
        assert len(answers) == 1
        checked += 1
        state = ENGINE.apply(state, seat, move)
    assert checked == 5 * (1 + 3)  # every cut and every take of the game
