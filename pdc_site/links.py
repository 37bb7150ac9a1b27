"""Links to pages of one argument, reversed once per process and links' prefix rather than once
a row: a page of fifty ladder rows or ten recent matches otherwise spends most of its drawing
in ``reverse()``."""

from functools import lru_cache

from django.urls import get_script_prefix, reverse


def around_argument(name: str, marker: str) -> tuple[str, str]:
    """What ``reverse(name, args=[x])`` puts before and after ``x``, for the current links'
    prefix. ``marker`` is an argument the route accepts and that its path holds nowhere else."""
    return _around_argument(name, marker, get_script_prefix())


@lru_cache(maxsize=32)
def _around_argument(name: str, marker: str, script_prefix: str) -> tuple[str, str]:
    prefix, suffix = reverse(name, args=[marker]).split(marker)
    return prefix, suffix
