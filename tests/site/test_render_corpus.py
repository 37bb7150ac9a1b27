"""Making a table's parts cheaper to render must not change a byte of them (issue 10).

A corpus of seeded matches of every game is played through the services; at checkpoints along
each match, every live part is rendered for a spectator and for each seat, in every language,
and hashed per (game, players, checkpoint, part). The hashes in ``render_corpus.json`` were
written by this same test run against main before the rendering work (``RENDER_CORPUS_WRITE=1``
writes them instead of comparing); they depend only on the seeds, the names below and the code,
never on the database (the table's id is replaced in its URLs) or the clock (no timer).
"""

from __future__ import annotations

import hashlib
import json
import os
import random
import re
from pathlib import Path

import pytest
from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.models import AnonymousUser
from django.utils import translation

from games import rendering, services
from games.engines import get_engine
from games.models import Match

pytestmark = pytest.mark.django_db

FIXTURE = Path(__file__).with_name("render_corpus.json")
#: (game, players, seed): both sizes of each game, so the boards and forms of each size show.
MATCHES = [
    ("part-du-chef", 3, "corpus-1"),
    ("part-du-chef", 2, "corpus-2"),
    ("pizza-party", 3, "corpus-3"),
    ("pizza-party", 2, "corpus-4"),
    ("cafe-fatal", 3, "corpus-5"),
    ("cafe-fatal", 4, "corpus-6"),
    ("part-du-chef", 4, "corpus-8"),
]
#: Options of a corpus match, and a form each must show at some checkpoint (the corpus would not
#: notice a change to a form it never shows).
OPTIONS = {"corpus-8": {"marianne": True}}
MUST_SHOW = {"corpus-8": 'id="marianne-form"'}
#: A checkpoint every few moves and at the end (secret steps and playbacks fall in between).
EVERY = 3


def corpus_match(game: str, players: int, seed: str):
    """A started friendly table (no timer) of users with fixed names, its chance from ``seed``."""
    users = [
        get_user_model().objects.create_user(f"{seed}-{name}")
        for name in ("ada", "bruno", "chiara", "dieter")[:players]
    ]
    match = services.create_table(users[0], game, seats=players, options=OPTIONS.get(seed, {}))
    Match.objects.filter(pk=match.pk).update(seed=seed)
    for user in users[1:]:
        services.join_table(user, match.pk)
    match.refresh_from_db()
    return match, users


def rendered(match: Match, users: list) -> dict[str, list[str]]:
    """part → its HTML for the spectator then each seat, in every language, the table's id
    taken out of its URLs."""
    out: dict[str, list[str]] = {part: [] for part in rendering.TABLE_PARTS}
    own_id = re.compile(rf"/{match.pk}(?=[/?\"'])")
    for language, _name in settings.LANGUAGES:
        with translation.override(language):
            snapshot = rendering.load_table(match.pk)
            for viewer in [AnonymousUser(), *users]:
                for part, html in rendering.table_parts(snapshot, viewer).items():
                    out[part].append(own_id.sub("/ID", html))
    return out


def corpus_hashes(game: str, players: int, seed: str) -> tuple[dict[str, str], set[str]]:
    """The parts' hashes at every checkpoint, and which of ``MUST_SHOW``'s forms showed."""
    hashes = {}
    shown = set()
    match, users = corpus_match(game, players, seed)
    engine = get_engine(game)
    rng = random.Random(seed)
    by_user = {s.index: s.user for s in match.seats.select_related("user")}
    moves = 0
    while True:
        if moves % EVERY == 0 or not match.is_playing:
            for part, htmls in rendered(match, users).items():
                shown |= {form for form in MUST_SHOW.values() if any(form in h for h in htmls)}
                digest = hashlib.sha256("\n\x00".join(htmls).encode()).hexdigest()
                hashes[f"{game}/{players}/{moves}/{part}"] = digest[:20]
        if not match.is_playing:
            return hashes, shown
        seat = engine.to_move(match.state)[0]
        move = engine.random_move(match.state, seat, rng)
        match = services.play(match.pk, by_user[seat], move, match.version)
        moves += 1


@pytest.mark.parametrize(("game", "players", "seed"), MATCHES)
def test_every_part_of_a_corpus_match_renders_as_before_in_every_language(game, players, seed):
    hashes, shown = corpus_hashes(game, players, seed)
    assert MUST_SHOW.get(seed, "") in shown | {""}
    before = json.loads(FIXTURE.read_text()) if FIXTURE.exists() else {}
    if os.environ.get("RENDER_CORPUS_WRITE"):
        # One match at a time (not with -n): each adds its own hashes to the file.
        FIXTURE.write_text(json.dumps({**before, **hashes}, indent=0, sort_keys=True) + "\n")
        pytest.skip("wrote the corpus's hashes")
    before = {key: value for key, value in before.items() if key.startswith(f"{game}/{players}/")}
    assert hashes.keys() == before.keys()
    changed = sorted(key for key in hashes if hashes[key] != before[key])
    assert not changed, f"{len(changed)} parts render differently, first: {changed[:10]}"
