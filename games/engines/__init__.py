"""Pure game engines: no Django, no clock, no hidden randomness (see base.py for the contract)."""

from .base import CHANCE, Engine, GameResult, IllegalMove, MalformedRecord
from .registry import all_engines, get_engine

__all__ = [
    "CHANCE",
    "Engine",
    "GameResult",
    "IllegalMove",
    "MalformedRecord",
    "all_engines",
    "get_engine",
]
