"""Pure game engines: no Django, no clock, no hidden randomness (see base.py for the contract)."""

from .base import (
    CHANCE,
    Column,
    Engine,
    GameResult,
    IllegalMove,
    MalformedRecord,
    OptionSpec,
    SeatRef,
    Sentence,
    sentence,
)
from .registry import all_engines, get_engine

__all__ = [
    "CHANCE",
    "Column",
    "Engine",
    "GameResult",
    "IllegalMove",
    "MalformedRecord",
    "OptionSpec",
    "SeatRef",
    "Sentence",
    "all_engines",
    "get_engine",
    "sentence",
]
