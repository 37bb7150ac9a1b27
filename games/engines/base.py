"""The engine contract every game implements.

An engine is pure and deterministic: it never imports Django, never reads a clock and never draws a
random number by itself. States and moves are plain JSON values (dicts, lists, ints, strings), so a
state can be stored as a snapshot and a match is fully defined by its record.

All randomness enters as *chance moves*: when ``to_move(state)`` contains ``CHANCE``, the platform
asks ``sample_chance(state, rng)`` for an outcome (with the match's own generator) and applies
it with ``apply(state, CHANCE, outcome)``. Replaying a record applies the same outcomes, so the
site and ``manage.py replay`` agree by construction.
"""

from __future__ import annotations

import random
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

State = dict[str, Any]
Move = dict[str, Any]

#: The pseudo-seat that plays chance moves (the deal, dice, bag draws, a neutral colour's picks).
CHANCE = -1

RECORD_FORMAT = "game-record/1"


def gettext_noop(text: str) -> str:
    """Mark ``text`` for translation and return it unchanged.

    The engines never import Django; Django's ``makemessages`` extracts every literal passed to a
    function of this name, and the site translates a refusal when it shows one
    (``games.services.explain``)."""
    return text


class IllegalMove(Exception):
    """A move the rules do not allow; the message is a sentence a player understands.

    ``template`` is the English sentence with ``{name}`` placeholders, marked with
    ``gettext_noop``, and ``params`` fills them: ``str(error)`` is the English sentence, and a site
    may translate the template before filling it. A template without parameters is used as it is
    (it may hold literal braces, such as a JSON example)."""

    def __init__(self, template: str, /, **params: Any) -> None:
        self.template = template
        self.params = params
        super().__init__(template.format(**params) if params else template)


@dataclass(frozen=True)
class SeatRef:
    """A seat named in a sentence: the site writes the player's name in its place, ``str`` the
    seat number (engines do not know who sits where)."""

    seat: int

    def __str__(self) -> str:
        return f"seat {self.seat}"


@dataclass(frozen=True)
class Sentence:
    """A sentence for people, translatable like ``IllegalMove``: ``template`` is English with
    ``{name}`` placeholders and is marked with ``gettext_noop``; ``params`` fill it. A parameter
    may itself be a ``Sentence`` (a kind's name, translated first) or a ``SeatRef``.

    ``str(sentence)`` is the English text; ``as_json`` / ``from_json`` store it (a Move row keeps
    the sentence that describes it)."""

    template: str
    params: dict[str, Any] = field(default_factory=dict)

    def __str__(self) -> str:
        if not self.params:
            return self.template
        return self.template.format(**{k: str(v) for k, v in self.params.items()})

    def as_json(self) -> dict[str, Any]:
        return {
            "template": self.template,
            "params": {k: _param_json(v) for k, v in self.params.items()},
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Sentence:
        return cls(
            data["template"], {k: _param_from_json(v) for k, v in data.get("params", {}).items()}
        )


def sentence(template: str, /, **params: Any) -> Sentence:
    return Sentence(template, params)


def joined(parts: Sequence[Any], template: str) -> Any:
    """One parameter made of several ``parts`` (sentences, seats or plain values), each pair
    joined by ``template``, a marked template with the placeholders ``{first}`` and ``{rest}``
    (a list separator, or a space between two sentences); a single part is returned as it is."""
    if not parts:
        return ""
    rest = parts[-1]
    for part in reversed(parts[:-1]):
        rest = Sentence(template, {"first": part, "rest": rest})
    return rest


#: The separators ``joined`` uses: items of a list, and sentences one after the other.
LIST_SEPARATOR = gettext_noop("{first}, {rest}")
SENTENCE_SEPARATOR = gettext_noop("{first} {rest}")


def _param_json(value: Any) -> Any:
    if isinstance(value, Sentence):
        return value.as_json()
    if isinstance(value, SeatRef):
        return {"seat": value.seat}
    return value


def _param_from_json(value: Any) -> Any:
    if isinstance(value, dict) and "template" in value:
        return Sentence.from_json(value)
    if isinstance(value, dict) and set(value) == {"seat"}:
        return SeatRef(value["seat"])
    return value


class MalformedRecord(Exception):
    """A game record that does not have the shape of ``game-record/1``."""


@dataclass(frozen=True)
class Column:
    """A column of a game's result breakdown: the key in each seat's row and its heading
    (marked with ``gettext_noop``). The values in a column are whole numbers."""

    key: str
    label: str


@dataclass(frozen=True)
class GameResult:
    """The end of a game: a score and a rank per seat (ranks start at 1; equal ranks are ties)."""

    scores: list[int]
    ranks: list[int]
    #: Game-specific detail for each seat or for the table (the spec of each game names the keys).
    extra: dict[str, Any] = field(default_factory=dict)

    def as_json(self) -> dict[str, Any]:
        return {"scores": self.scores, "ranks": self.ranks, **self.extra}


@dataclass(frozen=True)
class OptionSpec:
    """A table option: its default and the values a table may choose. The create forms of tables
    and arenas are built from these (``label``, ``choice_labels`` and ``help`` are marked with
    ``gettext_noop``; ``choice_labels`` names each choice, in the order of ``choices``)."""

    name: str
    default: Any
    choices: tuple[Any, ...]
    label: str
    choice_labels: tuple[str, ...] = ()
    help: str = ""

    def as_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "default": self.default,
            "choices": list(self.choices),
            "label": self.label,
        }


class Engine:
    """Base class of the game engines. Subclasses implement the rules; this class holds the parts
    of the contract that are the same for every game (options, records, ranks)."""

    slug: str = ""
    name: str = ""
    min_players: int = 2
    max_players: int = 2
    option_specs: tuple[OptionSpec, ...] = ()

    # --- set-up --------------------------------------------------------------------------------
    def new_game(self, n_players: int, options: dict[str, Any] | None = None) -> State:
        raise NotImplementedError

    def normalise_options(self, n_players: int, options: dict[str, Any] | None) -> dict[str, Any]:
        """Fill defaults and refuse unknown options, bad values and a bad number of players."""
        if not isinstance(n_players, int) or isinstance(n_players, bool):
            raise IllegalMove(gettext_noop("The number of players must be a whole number."))
        if not self.min_players <= n_players <= self.max_players:
            raise IllegalMove(
                gettext_noop("{game} is played by {low} to {high} players, not {count}."),
                game=self.name,
                low=self.min_players,
                high=self.max_players,
                count=n_players,
            )
        if options is None:
            options = {}
        if not isinstance(options, dict):
            raise IllegalMove(gettext_noop("Table options must be an object."))
        known = {spec.name: spec for spec in self.option_specs}
        unknown = sorted(set(options) - set(known))
        if unknown:
            raise IllegalMove(
                gettext_noop("{game} has no option named {option!r}."),
                game=self.name,
                option=unknown[0],
            )
        chosen = {}
        for name, spec in known.items():
            value = options.get(name, spec.default)
            if value not in spec.choices or type(value) is not type(spec.default):
                allowed = ", ".join(repr(c) for c in spec.choices)
                raise IllegalMove(
                    gettext_noop("Option {option!r} must be one of {allowed}."),
                    option=name,
                    allowed=allowed,
                )
            chosen[name] = value
        self.check_options_for_players(n_players, chosen)
        return chosen

    def check_options_for_players(self, n_players: int, options: dict[str, Any]) -> None:
        """Hook for options that only suit some numbers of players."""

    def table_options(self, n_players: int) -> tuple[OptionSpec, ...]:
        """The options a person chooses for a table of ``n_players`` (an option that the number of
        players decides, such as Pizza Party's duel, is left out)."""
        return self.option_specs

    # --- turn structure ------------------------------------------------------------------------
    def to_move(self, state: State) -> list[int]:
        """The seats that may move now, ascending (``[CHANCE]`` for chance, ``[]`` at the end)."""
        raise NotImplementedError

    def is_over(self, state: State) -> bool:
        return not self.to_move(state)

    def legal(self, state: State, seat: int) -> Iterator[Move]:
        """Every legal move of ``seat`` now, lazily: some games have too many to list at once."""
        raise NotImplementedError

    def check(self, state: State, seat: int, move: Any) -> None:
        """Raise ``IllegalMove`` unless ``seat`` may play ``move`` now."""
        raise NotImplementedError

    def apply(self, state: State, seat: int, move: Any) -> State:
        """Check the move and return the state after it; the given state is left untouched."""
        raise NotImplementedError

    def advance(self, state: State, seat: int, move: Move) -> State:
        """The state after ``move``, which the caller already knows to be legal (a search that
        drew it from ``legal``, ``random_move`` or a bot): ``apply`` without the check, and
        without the log entry where the rules do not read the log. Only for thinking ahead (bots,
        playouts): the scores and what comes next are those ``apply`` gives, the log is not."""
        return self.apply(state, seat, move)

    def random_move(self, state: State, seat: int, rng: random.Random) -> Move:
        """A legal move drawn at random (the 'random player' of tests and load generators)."""
        return rng.choice(list(self.legal(state, seat)))

    def random_step(self, state: State, seat: int, rng: random.Random) -> Move:
        """One step of a random game: a chance outcome drawn when ``seat`` is ``CHANCE``, else a
        legal move of the seat drawn at random (tests, benchmarks and demo data play so)."""
        if seat == CHANCE:
            return self.sample_chance(state, rng)
        return self.random_move(state, seat, rng)

    def random_playout(self, state: State, rng: random.Random) -> list[int]:
        """Play ``state`` out with random steps and return the final scores (``result``'s): the
        seat that steps is drawn with ``rng.choice`` among ``to_move``, then ``random_step``.
        What a search's random playouts and ``bench/bench_playouts.py`` run. An engine may play it
        on a lean state of its own, but the scores must be exactly these for the same ``rng``
        (the contract test compares it with this reference on seeded games)."""
        while True:
            seats = self.to_move(state)
            if not seats:
                return list(self.result(state).scores)
            seat = rng.choice(seats)
            state = self.advance(state, seat, self.random_step(state, seat, rng))

    def playout_move(self, state: State, seat: int, rng: random.Random) -> Move:
        """A quick legal move for ``seat`` in a world played out to judge a decision after the
        game (``engines.analysis``): on the state, never a view, and many per second. A random
        move unless the engine knows a better cheap policy."""
        return self.random_move(state, seat, rng)

    def played_out(self, state: State, rng: random.Random) -> State:
        """``state`` played to the end as the analysis after the game plays its worlds: every
        seat with ``playout_move`` (the first of ``to_move``), chance drawn."""
        while not self.is_over(state):
            mover = self.to_move(state)[0]
            if mover == CHANCE:
                move = self.sample_chance(state, rng)
            else:
                move = self.playout_move(state, mover, rng)
            state = self.advance(state, mover, move)
        return state

    def playout_outcome(self, state: State, rng: random.Random) -> tuple[list[int], list[int]]:
        """The scores and ranks at the end of ``state`` played out to judge a decision after the
        game (``engines.analysis``). An engine may play it on a lean state of its own, with a
        cheap policy of its own; the default plays the engine's states (``played_out``)."""
        result = self.result(self.played_out(state, rng))
        return list(result.scores), list(result.ranks)

    def simultaneous_step(self, state: State) -> str | None:
        """An id of the step now open when its seats move at the same time and in secret
        (Pizza Party's picks, La Part du Chef's chilli assignment), else None. Two such steps in a
        row have different ids. The site checks a move of such a step against the version at
        which the step opened, so another seat's pick never makes it stale (spec/api.md)."""
        return None

    # --- what happened ---------------------------------------------------------------------------
    def describe_move(self, state: State, seat: int, move: Move) -> Sentence | None:
        """The move log's line for ``move`` played by ``seat`` (``CHANCE`` included) on ``state``
        (the state before the move); None for a move that needs no line. The sentence names only
        what every seat knows once the move's step is over: a line is shown to a viewer only when
        ``record_move`` shows that viewer the move (a secret pick stays hidden until revealed).
        Every ``apply`` appends exactly one entry to ``state["log"]``, so the n-th move of a
        match is entry n of the log."""
        raise NotImplementedError

    # --- bots -----------------------------------------------------------------------------------
    #: The strengths of bot this engine offers (1 plays sensibly; higher levels think harder).
    bot_levels: tuple[int, ...] = (1,)

    def bot_move(self, view: dict[str, Any], rng: random.Random, level: int = 1) -> Move:
        """A sensible legal move for the seat whose ``view`` this is (``view(state, seat)``): it
        plays for a player out of time, fills practice tables and drives load tests. A bot gets
        the view, never the state, so it cannot use what its seat may not know; ``rng`` breaks
        ties and samples (re-dealt hidden parts, playouts)."""
        raise NotImplementedError

    def sample_state(self, view: dict[str, Any], rng: random.Random) -> State:
        """A full state that the seat of ``view`` cannot tell from the real one: what it sees is
        kept, what it cannot see is re-dealt at random (how searching bots think ahead)."""
        raise NotImplementedError

    def redeal_hidden(self, state: State, seat: int | None, rng: random.Random) -> State:
        """``state`` with everything ``seat`` cannot see re-dealt at random (upcoming pizzas,
        others' secret picks, future dice): ``view`` and the record ``seat`` gets must not change.
        The contract tests and the honesty tests of the bots use it."""
        raise NotImplementedError

    # --- chance --------------------------------------------------------------------------------
    def chance_outcomes(self, state: State) -> list[tuple[Move, float]] | None:
        """The distribution of the next chance move when it is small enough to list, else None
        (a deal of 65 slices has too many outcomes; ``sample_chance`` still draws from it)."""
        return None

    def sample_chance(self, state: State, rng: random.Random) -> Move:
        outcomes = self.chance_outcomes(state)
        if outcomes is None:
            raise NotImplementedError
        moves, weights = zip(*outcomes, strict=True)
        return rng.choices(moves, weights=weights)[0]

    # --- the end -------------------------------------------------------------------------------
    def result(self, state: State) -> GameResult:
        raise NotImplementedError

    def partial_scores(self, state: State) -> list[int]:
        """Each seat's points as they stand (shown at the table while the game runs)."""
        raise NotImplementedError

    #: The columns of the result breakdown, in display order (the last is usually the total).
    breakdown_columns: tuple[Column, ...] = ()

    def breakdown(self, state: State) -> list[dict[str, int]]:
        """One row per seat at the end of the game, with a whole number for every key of
        ``breakdown_columns`` (and no other key)."""
        raise NotImplementedError

    # --- what a seat may see -------------------------------------------------------------------
    def view(self, state: State, seat: int | None) -> dict[str, Any]:
        """Exactly what ``seat`` may see (``None``: a spectator)."""
        raise NotImplementedError

    # --- records -------------------------------------------------------------------------------
    def record_header(self, state: State, seat: int | None) -> dict[str, Any]:
        """Game-specific top-level record fields (what ``seat`` may see of them)."""
        return {}

    def record_move(self, seat: int, move: Move, viewer: int | None, final: bool) -> Move | None:
        """How one applied move appears in the record ``viewer`` gets; None leaves it out."""
        if seat == CHANCE:
            return {"chance": move}
        return {"seat": seat, **move}

    def header_moves(self, record: dict[str, Any], n_players: int) -> list[tuple[str, int, Move]]:
        """Moves a record keeps in its header (La Part du Chef's deal) as (label, seat, move), to
        replay first; the label names the header field in error messages."""
        return []

    def parse_record_move(self, entry: Any, index: int) -> tuple[int, Move]:
        """Turn one record entry into (seat, move)."""
        if not isinstance(entry, dict):
            raise MalformedRecord(f"move {index}: each move must be an object")
        if "chance" in entry:
            if set(entry) != {"chance"}:
                raise MalformedRecord(f"move {index}: a chance move has only the key 'chance'")
            return CHANCE, entry["chance"]
        seat = entry.get("seat")
        if not isinstance(seat, int) or isinstance(seat, bool):
            raise MalformedRecord(f"move {index}: 'seat' must be a seat number")
        move = {key: value for key, value in entry.items() if key != "seat"}
        return seat, move


def competition_ranks(values: Sequence[float], higher_is_better: bool = True) -> list[int]:
    """Ranks starting at 1 where equal values share a rank and the next rank skips (1, 1, 3)."""
    sign = 1 if higher_is_better else -1
    return [1 + sum(1 for other in values if sign * other > sign * mine) for mine in values]
