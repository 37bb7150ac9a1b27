"""Counting what a test sends to Redis."""

from __future__ import annotations

from typing import Any

import redis


def redis_commands(patch: Any) -> list[str]:
    """The name of every command sent to Redis from now on, through ``patch`` (``monkeypatch``
    or one of its ``context()``s, which ends the counting when it closes)."""
    names: list[str] = []
    execute = redis.Redis.execute_command

    def counted(self: redis.Redis, *args: Any, **options: Any) -> Any:
        names.append(args[0])
        return execute(self, *args, **options)

    patch.setattr(redis.Redis, "execute_command", counted)
    return names
