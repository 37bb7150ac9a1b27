"""Pairwise multiplayer Elo (spec/ratings.md). Pure: no Django."""

from __future__ import annotations

from collections.abc import Sequence

START = 1500.0


def k_factor(rated_before: int, n_players: int) -> float:
    """K by the number of rated matches of the game finished before this one (60 for the first
    10, 40 up to the 20th, 20 after), scaled by 3 / (n + 1) for an n-player match."""
    if rated_before < 10:
        base = 60.0
    elif rated_before < 20:
        base = 40.0
    else:
        base = 20.0
    return base * 3.0 / (n_players + 1)


def expected(rating: float, opponent: float) -> float:
    return 1.0 / (1.0 + 10.0 ** ((opponent - rating) / 400.0))


def outcome(rank: int, opponent_rank: int) -> float:
    """1 for finishing ahead, ½ for a shared rank, 0 for behind (ranks: lower is better)."""
    if rank < opponent_rank:
        return 1.0
    if rank == opponent_rank:
        return 0.5
    return 0.0


def rating_deltas(
    ratings: Sequence[float], ranks: Sequence[int], rated_before: Sequence[int]
) -> list[float]:
    """ΔR_i = K_i × Σ_j (S_ij − E_ij) over every other player j, with the ratings from before."""
    n = len(ratings)
    return [
        k_factor(rated_before[i], n)
        * sum(
            outcome(ranks[i], ranks[j]) - expected(ratings[i], ratings[j])
            for j in range(n)
            if j != i
        )
        for i in range(n)
    ]
