"""The store behind what a process keeps for its pages (``ratings.kept.KeptInProcess``)."""

from ratings.kept import KeptInProcess


def test_the_least_recently_read_value_is_forgotten_first() -> None:
    kept: KeptInProcess[str, int] = KeptInProcess(2)
    kept.put("a", 1)
    kept.put("b", 2)
    assert kept.get("a") == 1  # "b" is now the least recently read
    kept.put("c", 3)
    assert kept.get("b") is None
    assert kept.get_many(["a", "c"]) == {"a": 1, "c": 3}


def test_reading_many_keeps_what_was_found_and_skips_what_was_not() -> None:
    kept: KeptInProcess[str, str] = KeptInProcess(3)
    kept.set_many({"a": "x", "b": "y", "c": "z"})
    assert kept.get_many(["a", "missing"]) == {"a": "x"}
    kept.set_many({"d": "w"})
    assert kept.get_many(["a", "b", "c", "d"]) == {"a": "x", "c": "z", "d": "w"}


def test_a_value_put_again_replaces_the_old_one_without_growing() -> None:
    kept: KeptInProcess[str, int] = KeptInProcess(2)
    kept.put("a", 1)
    kept.put("a", 2)
    kept.put("b", 3)
    assert kept.get_many(["a", "b"]) == {"a": 2, "b": 3}
    kept.clear()
    assert kept.get("a") is None
