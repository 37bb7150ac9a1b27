"""Golden records whose results were worked out by hand from the specs, not read off the engine.

Each record in ``golden/*/…-hand-….json`` is short enough to follow move by move; the comments
below do the arithmetic of the spec's scoring, and the test replays the record through
``manage.py replay`` and compares.
"""

from __future__ import annotations

import json
from io import StringIO
from pathlib import Path

from django.core.management import call_command

from tests.golden_io import GOLDEN, load_case


def replayed(game: str, name: str, tmp_path: Path) -> dict:
    record_file = tmp_path / "record.json"
    record_file.write_text(json.dumps(load_case(GOLDEN / game / f"{name}.json")["record"]))
    out = StringIO()
    call_command("replay", str(record_file), stdout=out)
    return json.loads(out.getvalue())


def test_la_part_du_chef_two_players_scored_with_the_chillies_as_chosen(tmp_path):
    """Pizza 0 is R2 R2 M2 M2 F1 F1 V1 V1 T1 R2* C M3 B; the later pizzas hold the other slices
    in the order of the spec's table (tests/engines/pdc_helpers.py, ``make_deal``):
    pizza 1 M2* M2×5 M3×6 B, pizza 2 M3 R2×11 B, pizza 3 F1* F1×3 F2×5 V1* V1×2 B,
    pizza 4 V1×4 T1* T1×5 C C B. Every pizza is cut at [0, 6]: portion 0 is positions 0..5,
    portion 1 is 6..12. Nobody eats or steals.

    - pizza 0 (chef 0): seat 1 takes portion 1 (V1 V1 T1 R2* C M3 B), seat 0 gets R2 R2 M2 M2 F1 F1
    - pizza 1 (chef 1): seat 0 takes M2* M2×5, seat 1 gets M3×6 B
    - pizza 2 (chef 0): seat 1 takes M3 R2×5, seat 0 gets R2×6 B
    - pizza 3 (chef 1): seat 0 takes F1* F1×3 F2×2, seat 1 gets F2×3 V1* V1×2 B
    - pizza 4 (chef 0): seat 1 takes V1×4 T1* T1, seat 0 gets T1×4 C C B

    Kept: seat 0 M 8, R 8, F 8, V 0, T 4, 2 chillies, 2 burnt;
          seat 1 M 8, R 6, F 3, V 9, T 3, 1 chilli, 3 burnt.
    Chillies: seat 1 puts its chilli on M (its suggestion was T), seat 0 both on V.
    Counts: seat 0 M 8, R 8, F 8, V 2, T 4; seat 1 M 9, R 6, F 3, V 9, T 3.
    """
    result = replayed("part-du-chef", "2p-hand-chillies", tmp_path)
    # Olives: nothing eaten, 0. Slice points: 6 per pizza (the burnt slice scores none) = 30.
    # Majority, seat 0: R 8>6 (5) + F 8>3 (7) + T 4>3 (11) = 23; M 8<9 and V 2<9 score nothing.
    # Majority, seat 1: M 9>8 (3) + V 9>2 (9) = 12.
    # Variety: 5 × min count: seat 0 5 × 2 (V) = 10; seat 1 5 × 3 (F, T) = 15.
    # Burnt: seat 0 −3 × 2 = −6; seat 1 −3 × 3 = −9.
    # Totals: seat 0 30 + 23 + 10 − 6 = 57; seat 1 30 + 12 + 15 − 9 = 48.
    assert result == {
        "scores": [57, 48],
        "ranks": [1, 2],
        "breakdown": [
            {
                "olives": 0,
                "slice_points": 30,
                "majority": 23,
                "variety": 10,
                "burnt": -6,
                "total": 57,
            },
            {
                "olives": 0,
                "slice_points": 30,
                "majority": 12,
                "variety": 15,
                "burnt": -9,
                "total": 48,
            },
        ],
    }


def test_cafe_fatal_equal_points_go_to_more_loose_pieces_not_more_pieces(tmp_path):
    """Two players on the 3 × 3 grid (tables 0 1 2 / 3 4 5 / 6 7 8).

    Round 0 serves cheese, cheese, pizza, cake, pizza, cheese, pizza, cake, cake on tables 0..8
    and the extras, cheese, on 0 and 1. Ann puts three 1s on 0 and three 2s on 1; Bob three 3s
    on 8 and three 4s on 7. Share: Ann 2 + 2 cheese (4 points), Bob 2 cakes (10 points).
    Left: pizza on 2, 4, 6, cake on 3, cheese on 5.

    Round 1 (Bob first) serves pizza, cheese, pizza, pizza, cake, pizza, pizza, pizza, cake and
    the extras cake on 4, pizza on 2. Tables: 0 pizza; 1 cheese; 2 three pizzas; 3 cake + pizza;
    4 pizza + 2 cakes; 5 cheese + pizza; 6 two pizzas; 7 pizza; 8 cake. Ann puts two 1s on 2,
    two 2s on 5, two 3s on 4; Bob one die each on 8, 7, 6, 3, 0 and his last on 4, where Ann's
    two dice beat it. Share: Ann takes 2, 5, 4: 1 cheese, 5 pizzas, 2 cakes; Bob takes 8, 7, 6,
    3, 0: 2 cakes, 5 pizzas.
    """
    result = replayed("cafe-fatal", "2p-hand-loose-pieces-break-a-tie", tmp_path)
    # Ann: 5 cheese (a wheel, 10) + 5 pizzas (a whole pizza, 20) + 2 cakes (2 × 5) = 40 points,
    #      12 pieces, 2 loose (the cakes).
    # Bob: 4 cakes (4 × 5 = 20) + 5 pizzas (20) = 40 points, 9 pieces, 4 loose (the cakes).
    # 40 points ends the game; the tie goes to Bob's 4 loose pieces, though Ann holds more.
    assert result == {
        "scores": [40, 40],
        "ranks": [2, 1],
        "pieces": [12, 9],
        "loose": [2, 4],
    }


def test_cafe_fatal_equal_points_and_loose_pieces_share_first_place(tmp_path):
    """Every piece served is a cake. Round 0: extras on 0 and 8; Ann takes 0 and 1 (3 cakes),
    Bob 8 and 7 (3 cakes). Round 1: extras on 2 and 6; Bob puts six 6s on 3 (the cake left from
    round 0 and the new one), Ann six 5s on 5 (the same)."""
    result = replayed("cafe-fatal", "2p-hand-shared-first-place", tmp_path)
    # Each holds 5 cakes: a whole cake, 10 × 5 = 50 points, 0 loose pieces: a shared rank 1.
    assert result == {"scores": [50, 50], "ranks": [1, 1], "pieces": [5, 5], "loose": [0, 0]}


def test_cafe_fatal_ends_after_the_30th_round_when_nobody_reaches_40(tmp_path):
    """Every round both players put six 1s on table 0: a tie in count and in value, so no food
    is ever taken. The safety limit ends the game after the share of the 30th round."""
    result = replayed("cafe-fatal", "2p-hand-safety-end", tmp_path)
    assert result == {"scores": [0, 0], "ranks": [1, 1], "pieces": [0, 0], "loose": [0, 0]}
