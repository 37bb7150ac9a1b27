"""``bench/bench_move_request.py --endings``: the moves that end a match timed apart from the
others, and the queries of one of them, for each mode."""

from __future__ import annotations

import re

import pytest
from django.test import Client

from bench import bench_move_request as bench
from games import api, ratelimit

pytestmark = pytest.mark.django_db

TRANSACTION_CONTROL = ("BEGIN", "COMMIT", "SAVEPOINT", "RELEASE", "ROLLBACK")


@pytest.mark.parametrize("mode, queries", [("friendly", 5), ("ranked", 14)])
def test_the_moves_that_end_a_match_are_timed_apart_and_one_is_counted(
    mode, queries, monkeypatch, capsys, settings
):
    settings.API_TOKEN_CACHE = False
    monkeypatch.setattr(ratelimit, "MOVES_PER_WINDOW", (10**9, 60))
    monkeypatch.setattr(api, "CALLS_PER_WINDOW", (10**9, 60))
    client = Client(HTTP_HOST="localhost")
    client.handler = bench.site_client_handler()
    table = bench.Table(client, bench.make_tokens(bench.SEATS), mode)
    bench.print_endings(table, 2)
    out = capsys.readouterr().out
    assert re.search(rf"^{mode} match, other moves: \d+ POSTs, median [\d.]+ ms", out, re.M)
    assert re.search(rf"^{mode} match, the move that ends it: 2 POSTs, median", out, re.M)
    counted = re.search(rf"^{mode} match, the move that ends it: (\d+) queries$", out, re.M)
    # Transaction control is among them on SQLite; the others are tests/site/test_api_cost.py's.
    listed = [line.strip() for line in out.splitlines() if line.startswith("   ")]
    data = [q for q in listed if not q.upper().startswith(TRANSACTION_CONTROL)]
    assert int(counted.group(1)) == len(listed) and len(data) == queries
