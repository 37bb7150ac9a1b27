"""La Part du Chef, exactly as ``spec/part-du-chef.md`` decides.

A state is a JSON object. Slices are named by their global id (13 * pizza + position); their codes
live in ``state["pizzas"]``, which only the engine reads: views show a pizza from its round on.
"""

from __future__ import annotations

import functools
import itertools
import random
from collections import Counter
from collections.abc import Iterator
from typing import Any

from .base import (
    CHANCE,
    LIST_SEPARATOR,
    SENTENCE_SEPARATOR,
    Column,
    Engine,
    GameResult,
    IllegalMove,
    MalformedRecord,
    Move,
    OptionSpec,
    SeatRef,
    Sentence,
    State,
    competition_ranks,
    gettext_noop,
    joined,
    sentence,
)
from .registry import register

PIZZAS = 5
SLICES_PER_PIZZA = 13
KINDS = "MRFVT"
KIND_NAMES = {
    "M": gettext_noop("Margherita"),
    "R": gettext_noop("Reine"),
    "F": gettext_noop("4 Fromages"),
    "V": gettext_noop("Végétarienne"),
    "T": gettext_noop("Truffe"),
}
MAJORITY_VALUE = {"M": 3, "R": 5, "F": 7, "V": 9, "T": 11}
#: Non-burnt slices in the game, by code (a finisher is marked later with a trailing ``*``).
SLICE_COUNTS = {"M2": 8, "M3": 8, "R2": 14, "F1": 6, "F2": 5, "V1": 9, "T1": 7, "C": 3}
CHILLI = "C"
BURNT = "B"
VARIETY_MULTIPLIER = len(KINDS)
BURNT_PENALTY = 3
#: Chilli assignments are compared on the higher-valued kinds first when they score the same.
CHILLI_TIE_ORDER = "TVFRM"


def kind_of(code: str) -> str | None:
    """The kind letter of a slice code, or None for a chilli or a burnt slice."""
    return code[0] if code[0] in KINDS else None


def olives_of(code: str) -> int:
    return int(code[1]) if kind_of(code) else 0


def is_finisher(code: str) -> bool:
    return code.endswith("*")


def is_edible(code: str) -> bool:
    return kind_of(code) is not None


def code_label(code: str) -> str:
    """A slice code as people read it: the finisher's ``*`` becomes a star (``R2★``)."""
    return code.replace("*", "★")


#: Every code a deal may hold (plain, finisher, chilli, burnt), and what each one is, looked up
#: once here rather than parsed again on every move (searches apply hundreds of thousands).
_ALL_CODES = (*SLICE_COUNTS, BURNT, *(code + "*" for code in SLICE_COUNTS if kind_of(code)))
KIND_OF_CODE: dict[str, str | None] = {code: kind_of(code) for code in _ALL_CODES}
#: A slice's kind as its index in ``KINDS`` (-1 for burnt slices and chillies): lean playouts count
#: kinds in lists.
KIND_INDEX_OF_CODE: dict[str, int] = {
    code: (KINDS.index(kind) if kind is not None else -1) for code, kind in KIND_OF_CODE.items()
}
OLIVES_OF_CODE: dict[str, int] = {code: olives_of(code) for code in _ALL_CODES}
FINISHER_CODES = frozenset(code for code in _ALL_CODES if is_finisher(code))
EDIBLE_CODES = frozenset(code for code in _ALL_CODES if is_edible(code))


def slice_code(state: State, slice_id: int) -> str:
    return state["pizzas"][slice_id // SLICES_PER_PIZZA][slice_id % SLICES_PER_PIZZA]


def portions_of_cut(starts: list[int], pizza: int) -> list[list[int]]:
    """The portions (lists of global slice ids) that a cut at ``starts`` makes, in sorted order:
    portion j runs from s_j up to s_{j+1} - 1 and the last one wraps round to s_0 - 1."""
    return [list(portion) for portion in _portions_of_cut(tuple(sorted(starts)), pizza)]


@functools.lru_cache(maxsize=8192)
def _portions_of_cut(ordered: tuple[int, ...], pizza: int) -> tuple[tuple[int, ...], ...]:
    # Searches cut the same few pizzas many times over: each cut is worked out once.
    base = pizza * SLICES_PER_PIZZA
    portions = []
    for j, start in enumerate(ordered):
        end = ordered[(j + 1) % len(ordered)]
        length = (end - start) % SLICES_PER_PIZZA or SLICES_PER_PIZZA
        portions.append(tuple(base + (start + step) % SLICES_PER_PIZZA for step in range(length)))
    return tuple(portions)


class PartDuChef(Engine):
    slug = "part-du-chef"
    name = "La Part du Chef"
    min_players = 2
    max_players = 5
    option_specs = (
        OptionSpec(
            "marianne",
            False,
            (False, True),
            gettext_noop("La Marianne bonus card"),
            choice_labels=(gettext_noop("Without La Marianne"), gettext_noop("With La Marianne")),
            help=gettext_noop(
                "The card follows each round's chef; once in the game its holder may swap two "
                "of their kept slices for two kept slices of other players."
            ),
        ),
    )
    breakdown_columns = (
        Column("olives", gettext_noop("Olives")),
        Column("slice_points", gettext_noop("Slice points")),
        Column("majority", gettext_noop("Majorities")),
        Column("variety", gettext_noop("Variety bonus")),
        Column("burnt", gettext_noop("Burnt slices")),
        Column("total", gettext_noop("Total")),
    )

    # --- set-up --------------------------------------------------------------------------------
    def new_game(self, n_players: int, options: dict[str, Any] | None = None) -> State:
        options = self.normalise_options(n_players, options)
        return {
            "n": n_players,
            "options": options,
            "log": [],
            "phase": "deal",
            "first_chef": None,
            "pizzas": None,
            "round": 0,
            "cut": None,
            "portions": None,
            "taken_by": None,
            "choosers_done": 0,
            "kept": [[] for _ in range(n_players)],
            "eaten": [[] for _ in range(n_players)],
            "olives": [0] * n_players,
            "slice_points": [0] * n_players,
            "marianne_used": not options["marianne"],
            # The chilli step: each seat's assignment once chosen, and how many chillies each
            # seat keeps (both None before the step).
            "chillies": None,
            "chillies_held": None,
        }

    # --- whose turn ----------------------------------------------------------------------------
    def chef(self, state: State) -> int:
        return (state["first_chef"] + state["round"]) % state["n"]

    def chooser(self, state: State) -> int:
        """Seats chef+1, chef+2, … choose in turn; the chef comes last."""
        return (self.chef(state) + 1 + state["choosers_done"]) % state["n"]

    def to_move(self, state: State) -> list[int]:
        phase = state["phase"]
        if phase == "take":  # the most frequent, first; ``chooser`` written out (searches)
            chef = state["first_chef"] + state["round"]
            return [(chef + 1 + state["choosers_done"]) % state["n"]]
        if phase == "cut":
            return [self.chef(state)]
        if phase == "deal":
            return [CHANCE]
        if phase == "chillies":
            return [
                seat
                for seat in range(state["n"])
                if state["chillies"][seat] is None and state["chillies_held"][seat]
            ]
        return []

    def is_over(self, state: State) -> bool:
        phase = state["phase"]  # read first: a search asks after every move
        return phase == "over" or (phase == "chillies" and not self.to_move(state))

    def simultaneous_step(self, state: State) -> str | None:
        return "chillies" if state["phase"] == "chillies" else None

    def marianne_holder(self, state: State) -> int | None:
        """The card follows each round's chef until it is played."""
        if state["marianne_used"] or state["phase"] not in ("cut", "take"):
            return None
        return self.chef(state)

    def may_play_marianne(self, state: State, seat: int) -> bool:
        return self.marianne_holder(state) == seat and seat in self.to_move(state)

    # --- checking moves ------------------------------------------------------------------------
    def check(self, state: State, seat: int, move: Any) -> None:
        if not isinstance(move, dict) or len(move) == 0:
            raise IllegalMove(gettext_noop('A move must be an object such as {"cut": [...]}.'))
        if state["phase"] == "over":
            raise IllegalMove(gettext_noop("The game is over."))
        if seat == CHANCE:
            self._check_deal(state, move)
            return
        if seat not in self.to_move(state):
            self._refuse_out_of_turn(state, seat)
        if state["phase"] == "chillies":
            self._check_chillies(state, seat, move)
        elif "marianne" in move:
            self._check_marianne(state, seat, move)
        elif state["phase"] == "cut":
            self._check_cut(state, move)
        else:
            self._check_take(state, seat, move)

    def _refuse_out_of_turn(self, state: State, seat: int) -> None:
        if state["phase"] == "chillies" and _is_int(seat) and 0 <= seat < state["n"]:
            if not state["chillies_held"][seat]:
                raise IllegalMove(
                    gettext_noop("You keep no chilli, so you have nothing to assign.")
                )
            raise IllegalMove(gettext_noop("You have already assigned your chillies."))
        raise IllegalMove(gettext_noop("It is not your turn."))

    def _check_chillies(self, state: State, seat: int, move: Move) -> None:
        if set(move) != {"chillies"}:
            raise IllegalMove(
                gettext_noop('Assign your chillies to kinds: {"chillies": {"T": 2}}.')
            )
        assignment = move["chillies"]
        if not isinstance(assignment, dict):
            raise IllegalMove(
                gettext_noop("'chillies' maps kind letters to how many chillies count for each.")
            )
        for kind, count in assignment.items():
            if kind not in KIND_NAMES:
                raise IllegalMove(
                    gettext_noop("{kind!r} is not a kind: use one of M, R, F, V, T."), kind=kind
                )
            if not _is_int(count) or count < 0:
                raise IllegalMove(gettext_noop("Chillies are counted in whole numbers, 0 or more."))
        held = state["chillies_held"][seat]
        if sum(assignment.values()) != held:
            raise IllegalMove(
                gettext_noop("Assign exactly as many chillies as you keep: {count}."), count=held
            )

    def _check_deal(self, state: State, move: Move) -> None:
        if state["phase"] != "deal":
            raise IllegalMove(gettext_noop("The pizzas have already been dealt."))
        if set(move) != {"deal"} or not isinstance(move["deal"], dict):
            raise IllegalMove(gettext_noop('A deal is {"deal": {"first_chef": …, "pizzas": […]}}.'))
        deal = move["deal"]
        first_chef = deal.get("first_chef")
        if not _is_int(first_chef) or not 0 <= first_chef < state["n"]:
            raise IllegalMove(
                gettext_noop("The first chef must be a seat from 0 to {last}."), last=state["n"] - 1
            )
        check_pizzas(deal.get("pizzas"))

    def _check_cut(self, state: State, move: Move) -> None:
        if set(move) != {"cut"}:
            raise IllegalMove(
                gettext_noop('The chef must cut the pizza: {"cut": [start positions]}.')
            )
        starts = move["cut"]
        n = state["n"]
        if not isinstance(starts, list) or not all(_is_int(s) for s in starts):
            raise IllegalMove(gettext_noop("A cut is a list of start positions from 0 to 12."))
        if len(starts) != n:
            raise IllegalMove(
                gettext_noop("Cut the pizza into {n} portions: name {n} start positions."), n=n
            )
        if any(not 0 <= s < SLICES_PER_PIZZA for s in starts):
            raise IllegalMove(gettext_noop("Start positions go from 0 to 12."))
        if len(set(starts)) != n:
            raise IllegalMove(gettext_noop("Each start position may be named only once."))

    def _check_take(self, state: State, seat: int, move: Move) -> None:
        extra = set(move) - {"take", "eat", "steal"}
        if "take" not in move or extra:
            raise IllegalMove(
                gettext_noop(
                    'Take a portion: {"take": index, "eat": [slice ids], "steal": {kind: seat}}.'
                )
            )
        index = move["take"]
        portions = state["portions"]
        if not _is_int(index) or not 0 <= index < len(portions):
            raise IllegalMove(
                gettext_noop("Portions are numbered 0 to {last}."), last=len(portions) - 1
            )
        if state["taken_by"][index] is not None:
            raise IllegalMove(gettext_noop("Portion {index} has already been taken."), index=index)
        portion = portions[index]
        eat = move.get("eat", [])
        if not isinstance(eat, list) or not all(_is_int(i) for i in eat):
            raise IllegalMove(gettext_noop("'eat' lists the ids of the slices you eat."))
        if len(set(eat)) != len(eat):
            raise IllegalMove(gettext_noop("Each slice can be eaten only once."))
        for slice_id in eat:
            if slice_id not in portion:
                raise IllegalMove(
                    gettext_noop("Slice {slice} is not in portion {portion}."),
                    slice=slice_id,
                    portion=index,
                )
            code = slice_code(state, slice_id)
            if code == CHILLI:
                raise IllegalMove(gettext_noop("A chilli cannot be eaten."))
            if code == BURNT:
                raise IllegalMove(gettext_noop("The burnt slice cannot be eaten."))
        self._check_steals(state, seat, portion, eat, move.get("steal", {}))

    def _check_steals(
        self, state: State, seat: int, portion: list[int], eat: list[int], steal: Any
    ) -> None:
        if not isinstance(steal, dict):
            raise IllegalMove(
                gettext_noop("'steal' maps a kind letter to the seat you take a slice from.")
            )
        kept_finishers = self._kept_finisher_kinds(state, portion, eat)
        for kind, target in steal.items():
            if kind not in KIND_NAMES:
                raise IllegalMove(
                    gettext_noop("{kind!r} is not a kind: use one of M, R, F, V, T."), kind=kind
                )
            if kind not in kept_finishers:
                raise IllegalMove(
                    gettext_noop(
                        "You keep no {kind} finisher in this portion, so you cannot steal."
                    ),
                    kind=KIND_NAMES[kind],
                )
            if not _is_int(target) or not 0 <= target < state["n"] or target == seat:
                raise IllegalMove(
                    gettext_noop("You can only steal from an opponent at this table.")
                )
            if not self._kept_of_kind(state, target, kind):
                raise IllegalMove(
                    gettext_noop("Seat {seat} keeps no {kind} slice to take."),
                    seat=target,
                    kind=KIND_NAMES[kind],
                )

    def _kept_finisher_kinds(self, state: State, portion: list[int], eat: list[int]) -> set[str]:
        pizza = state["pizzas"][portion[0] // SLICES_PER_PIZZA]  # a portion is of one pizza
        return {
            KIND_OF_CODE[code]
            for i in portion
            if (code := pizza[i % SLICES_PER_PIZZA]) in FINISHER_CODES and i not in eat
        }

    def _kept_of_kind(self, state: State, seat: int, kind: str) -> list[int]:
        pizzas = state["pizzas"]
        return [
            i
            for i in state["kept"][seat]
            if KIND_OF_CODE[pizzas[i // SLICES_PER_PIZZA][i % SLICES_PER_PIZZA]] == kind
        ]

    def _keeps_kind(self, state: State, seat: int, kind: str) -> bool:
        pizzas = state["pizzas"]
        return any(
            KIND_OF_CODE[pizzas[i // SLICES_PER_PIZZA][i % SLICES_PER_PIZZA]] == kind
            for i in state["kept"][seat]
        )

    def _check_marianne(self, state: State, seat: int, move: Move) -> None:
        if set(move) != {"marianne"}:
            raise IllegalMove(gettext_noop("Play La Marianne on its own, before your move."))
        if not state["options"]["marianne"]:
            raise IllegalMove(gettext_noop("This table plays without La Marianne."))
        if state["marianne_used"]:
            raise IllegalMove(gettext_noop("La Marianne has already been played."))
        if self.marianne_holder(state) != seat:
            raise IllegalMove(gettext_noop("Only the chef holding La Marianne may play it."))
        swap = move["marianne"]
        if not isinstance(swap, dict) or set(swap) != {"give", "get"}:
            raise IllegalMove(
                gettext_noop('La Marianne is {"give": [two ids], "get": [[seat, id], [seat, id]]}.')
            )
        give, get = swap["give"], swap["get"]
        if (
            not isinstance(give, list)
            or len(give) != 2
            or not all(_is_int(i) for i in give)
            or len(set(give)) != 2
        ):
            raise IllegalMove(gettext_noop("Give exactly two different slices of yours."))
        if any(i not in state["kept"][seat] for i in give):
            raise IllegalMove(gettext_noop("You can only give slices you keep."))
        if (
            not isinstance(get, list)
            or len(get) != 2
            or not all(isinstance(g, list) and len(g) == 2 and all(map(_is_int, g)) for g in get)
        ):
            raise IllegalMove(
                gettext_noop("Get exactly two slices, each written [seat, slice id].")
            )
        if get[0][1] == get[1][1]:
            raise IllegalMove(gettext_noop("Get two different slices."))
        for other, slice_id in get:
            if not 0 <= other < state["n"] or other == seat:
                raise IllegalMove(gettext_noop("Swap with other players at this table."))
            if slice_id not in state["kept"][other]:
                raise IllegalMove(
                    gettext_noop("Seat {seat} does not keep slice {slice}."),
                    seat=other,
                    slice=slice_id,
                )

    # --- applying moves ------------------------------------------------------------------------
    def apply(self, state: State, seat: int, move: Any) -> State:
        self.check(state, seat, move)
        new = self.advance(state, seat, move)
        new["log"] = [*state["log"], [seat, move]]
        return new

    def advance(self, state: State, seat: int, move: Move) -> State:
        new = dict(state)
        if seat == CHANCE:
            self._apply_deal(new, move["deal"])
        elif new["phase"] == "chillies":
            self._apply_chillies(new, seat, move["chillies"])
        elif "marianne" in move:
            self._apply_marianne(new, seat, move["marianne"])
        elif new["phase"] == "cut":
            self._apply_cut(new, move["cut"])
        else:
            self._apply_take(new, seat, move)
        return new

    def _apply_deal(self, new: State, deal: dict[str, Any]) -> None:
        new["first_chef"] = deal["first_chef"]
        new["pizzas"] = [list(pizza) for pizza in deal["pizzas"]]
        new["phase"] = "cut"

    def _apply_cut(self, new: State, starts: list[int]) -> None:
        new["cut"] = sorted(starts)
        new["portions"] = portions_of_cut(starts, new["round"])
        new["taken_by"] = [None] * new["n"]
        new["choosers_done"] = 0
        new["phase"] = "take"

    def _apply_take(self, new: State, seat: int, move: Move) -> None:
        index = move["take"]
        portion = new["portions"][index]
        eaten_now = move.get("eat") or ()
        # Only the taker's lists and its victims' change: the others are shared with the state
        # before (nothing changes a state's lists in place).
        kept = list(new["kept"])
        eaten = list(new["eaten"])
        kept[seat] = list(kept[seat])
        if eaten_now:
            eaten[seat] = list(eaten[seat])
        pizza = new["pizzas"][portion[0] // SLICES_PER_PIZZA]  # a portion is of one pizza
        mine_kept, mine_eaten = kept[seat], eaten[seat]
        points = olives_now = 0
        for slice_id in portion:
            code = pizza[slice_id % SLICES_PER_PIZZA]
            if code != BURNT:
                points += 1
            if slice_id in eaten_now:
                mine_eaten.append(slice_id)
                olives_now += OLIVES_OF_CODE[code]
            else:
                mine_kept.append(slice_id)
        olives = list(new["olives"])
        olives[seat] += olives_now
        slice_points = list(new["slice_points"])
        slice_points[seat] += points
        new["kept"] = kept
        steal = move.get("steal")
        if steal:
            for kind in KINDS:
                if kind in steal:
                    target = steal[kind]
                    taken = min(self._kept_of_kind(new, target, kind))
                    kept[target] = [i for i in kept[target] if i != taken]
                    mine_kept.append(taken)
        mine_kept.sort()
        if eaten_now:
            mine_eaten.sort()
        new["eaten"] = eaten
        new["olives"] = olives
        new["slice_points"] = slice_points
        taken_by = list(new["taken_by"])
        taken_by[index] = seat
        new["taken_by"] = taken_by
        new["choosers_done"] += 1
        if new["choosers_done"] == new["n"]:
            self._end_round(new)

    def _end_round(self, new: State) -> None:
        new["round"] += 1
        new["cut"] = None
        new["portions"] = None
        new["taken_by"] = None
        new["choosers_done"] = 0
        if new["round"] < PIZZAS:
            new["phase"] = "cut"
        else:
            # Chillies cannot be eaten, so someone always keeps them and the step always comes.
            new["phase"] = "chillies"
            new["chillies"] = [None] * new["n"]
            new["chillies_held"] = [self.held(new, seat, CHILLI) for seat in range(new["n"])]

    def _apply_chillies(self, new: State, seat: int, assignment: dict[str, int]) -> None:
        chosen = list(new["chillies"])
        chosen[seat] = compact_assignment(assignment)
        new["chillies"] = chosen
        if not self.to_move(new):
            new["phase"] = "over"

    def _apply_marianne(self, new: State, seat: int, swap: dict[str, Any]) -> None:
        kept = [list(k) for k in new["kept"]]
        for given, (other, got) in zip(swap["give"], swap["get"], strict=True):
            kept[seat].remove(given)
            kept[other].append(given)
            kept[other].remove(got)
            kept[seat].append(got)
        new["kept"] = [sorted(k) for k in kept]
        new["marianne_used"] = True

    # --- legal moves ---------------------------------------------------------------------------
    def legal(self, state: State, seat: int) -> Iterator[Move]:
        if seat not in self.to_move(state) or seat == CHANCE:
            return
        if state["phase"] == "chillies":
            for assignment in chilli_assignments(state["chillies_held"][seat]):
                yield {"chillies": compact_assignment(assignment)}
            return
        if state["phase"] == "cut":
            for starts in itertools.combinations(range(SLICES_PER_PIZZA), state["n"]):
                yield {"cut": list(starts)}
        else:
            for index, owner in enumerate(state["taken_by"]):
                if owner is None:
                    yield from self._takes_of_portion(state, seat, index)
        if self.may_play_marianne(state, seat):
            yield from self._marianne_swaps(state, seat)

    def _takes_of_portion(self, state: State, seat: int, index: int) -> Iterator[Move]:
        portion = state["portions"][index]
        edible = [i for i in portion if is_edible(slice_code(state, i))]
        for size in range(len(edible) + 1):
            for eat in itertools.combinations(edible, size):
                for steal in self._steal_choices(state, seat, portion, list(eat)):
                    move: Move = {"take": index, "eat": list(eat)}
                    if steal:
                        move["steal"] = steal
                    yield move

    def _steal_choices(
        self, state: State, seat: int, portion: list[int], eat: list[int]
    ) -> Iterator[dict[str, int]]:
        per_kind = []
        for kind in sorted(self._kept_finisher_kinds(state, portion, eat), key=KINDS.index):
            targets = self.steal_targets(state, seat, kind)
            per_kind.append([(kind, None)] + [(kind, t) for t in targets])
        for combo in itertools.product(*per_kind):
            yield {kind: target for kind, target in combo if target is not None}

    def steal_targets(self, state: State, seat: int, kind: str) -> list[int]:
        """The opponents who keep a slice of ``kind`` (a finisher of it could take from them)."""
        return [
            other
            for other in range(state["n"])
            if other != seat and self._keeps_kind(state, other, kind)
        ]

    def _marianne_swaps(self, state: State, seat: int) -> Iterator[Move]:
        others = [
            [other, i] for other in range(state["n"]) if other != seat for i in state["kept"][other]
        ]
        for give in itertools.combinations(state["kept"][seat], 2):
            for get in itertools.permutations(others, 2):
                yield {"marianne": {"give": list(give), "get": [list(get[0]), list(get[1])]}}

    def random_move(self, state: State, seat: int, rng: random.Random) -> Move:
        if state["phase"] == "chillies":
            return {"chillies": random_assignment(state["chillies_held"][seat], rng)}
        if self.may_play_marianne(state, seat) and rng.random() < 0.25:
            swap = self._random_marianne(state, seat, rng)
            if swap is not None:
                return swap
        # Every draw below is ``int(rng.random() * k)``: uniform over k choices like
        # ``rng.choice``, at a third of its cost, and what ``random_playout`` draws alike.
        if state["phase"] == "cut":
            cuts = CUTS[state["n"]]
            return {"cut": list(cuts[int(rng.random() * len(cuts))])}
        free = [j for j, owner in enumerate(state["taken_by"]) if owner is None]
        index = free[int(rng.random() * len(free))]
        portion = state["portions"][index]
        pizza = state["pizzas"][state["round"]]
        eat = [
            i for i in portion if pizza[i % SLICES_PER_PIZZA] in EDIBLE_CODES and rng.random() < 0.5
        ]
        move: Move = {"take": index, "eat": eat}
        steal = {}
        finishers = [
            KIND_OF_CODE[code]
            for i in portion
            if (code := pizza[i % SLICES_PER_PIZZA]) in FINISHER_CODES and i not in eat
        ]
        for kind in sorted(finishers, key=KINDS.index) if finishers else ():
            targets = self.steal_targets(state, seat, kind)
            choice = int(rng.random() * (len(targets) + 1))  # 0: no steal
            if choice:
                steal[kind] = targets[choice - 1]
        if steal:
            move["steal"] = steal
        return move

    def _random_marianne(self, state: State, seat: int, rng: random.Random) -> Move | None:
        others = [[o, i] for o in range(state["n"]) if o != seat for i in state["kept"][o]]
        if len(state["kept"][seat]) < 2 or len(others) < 2:
            return None
        give = rng.sample(state["kept"][seat], 2)
        get = rng.sample(others, 2)
        return {"marianne": {"give": give, "get": get}}

    # --- what happened ---------------------------------------------------------------------------
    def describe_move(self, state: State, seat: int, move: Move) -> Sentence | None:
        if seat == CHANCE:
            return None  # the deal: each pizza shows itself when its round starts
        player = SeatRef(seat)
        if "chillies" in move:
            return sentence(
                gettext_noop("{player} assigns their chillies: {assignment}."),
                player=player,
                assignment=chillies_phrase(move["chillies"]),
            )
        if "marianne" in move:
            return self._describe_marianne(state, player, move["marianne"])
        if "cut" in move:
            return sentence(
                gettext_noop("{player} cuts pizza {number} at positions {cut}."),
                player=player,
                number=state["round"] + 1,
                cut=", ".join(str(start) for start in sorted(move["cut"])),
            )
        return self._describe_take(state, player, move)

    def _describe_take(self, state: State, player: SeatRef, move: Move) -> Sentence:
        index = move["take"]
        slices = self._labels(state, state["portions"][index])
        eaten = sorted(move.get("eat", []))
        if eaten:
            take = sentence(
                gettext_noop("{player} takes portion {portion} ({slices}) and eats {eaten}."),
                player=player,
                portion=index,
                slices=slices,
                eaten=self._labels(state, eaten),
            )
        else:
            take = sentence(
                gettext_noop("{player} takes portion {portion} ({slices})."),
                player=player,
                portion=index,
                slices=slices,
            )
        steal = move.get("steal", {})
        steals = [
            sentence(
                gettext_noop("{player} takes {slice} from {victim}."),
                player=player,
                slice=self._labels(state, [min(self._kept_of_kind(state, steal[kind], kind))]),
                victim=SeatRef(steal[kind]),
            )
            for kind in KINDS
            if kind in steal
        ]
        return joined([take, *steals], SENTENCE_SEPARATOR)

    def _describe_marianne(self, state: State, player: SeatRef, swap: dict[str, Any]) -> Sentence:
        (give_a, give_b), ((to_a, get_a), (to_b, get_b)) = swap["give"], swap["get"]
        return sentence(
            gettext_noop(
                "{player} plays La Marianne: gives {give_a} to {to_a} for {get_a}, "
                "and {give_b} to {to_b} for {get_b}."
            ),
            player=player,
            give_a=self._labels(state, [give_a]),
            to_a=SeatRef(to_a),
            get_a=self._labels(state, [get_a]),
            give_b=self._labels(state, [give_b]),
            to_b=SeatRef(to_b),
            get_b=self._labels(state, [get_b]),
        )

    def _labels(self, state: State, slice_ids: list[int]) -> str:
        return ", ".join(code_label(slice_code(state, i)) for i in slice_ids)

    # --- bots -----------------------------------------------------------------------------------
    bot_levels = (1, 2, 3)

    def bot_move(self, view: dict[str, Any], rng: random.Random, level: int = 1) -> Move:
        from .part_du_chef_bot import bot_move  # the bots import this module

        return bot_move(view, rng, level)

    def sample_state(self, view: dict[str, Any], rng: random.Random) -> State:
        n = view["players"]
        phase = view["phase"]
        seats = view["seats"]
        portions = view["portions"]
        pizzas = None if phase == "deal" else deal_after(view["pizzas"], rng)
        if view["round"] is not None:
            round_number = view["round"]
        else:
            round_number = 0 if phase == "deal" else PIZZAS
        return {
            "n": n,
            "options": {"marianne": view["marianne"] is not None},
            "log": [],
            "phase": phase,
            "first_chef": view["first_chef"],
            "pizzas": pizzas,
            "round": round_number,
            "cut": None if view["cut"] is None else list(view["cut"]),
            "portions": None if portions is None else [list(p["slices"]) for p in portions],
            "taken_by": None if portions is None else [p["taken_by"] for p in portions],
            "choosers_done": sum(1 for p in portions or [] if p["taken_by"] is not None),
            "kept": [list(s["kept"]) for s in seats],
            "eaten": [list(s["eaten"]) for s in seats],
            "olives": [s["olives"] for s in seats],
            "slice_points": [s["slice_points"] for s in seats],
            "marianne_used": view["marianne"] is None or not view["marianne"]["in_play"],
            "chillies": self._sampled_choices(view["chillies"], rng),
            "chillies_held": None if view["chillies"] is None else list(view["chillies"]["held"]),
        }

    def _sampled_choices(
        self, seen: dict[str, Any] | None, rng: random.Random
    ) -> list[dict[str, int] | None] | None:
        """The chilli choices: those the view shows, a random one where it only says 'chosen'."""
        if seen is None:
            return None
        return [
            shown if shown is not None else random_assignment(held, rng) if chosen else None
            for shown, chosen, held in zip(
                seen["assignments"], seen["chosen"], seen["held"], strict=True
            )
        ]

    def redeal_hidden(self, state: State, seat: int | None, rng: random.Random) -> State:
        new = dict(state)
        log = list(state["log"])
        revealed = self.revealed_rounds(state)
        if state["pizzas"] is not None and revealed < PIZZAS:
            new["pizzas"] = deal_after(state["pizzas"][:revealed], rng)
            [(_, deal)] = log[:1]  # the deal is always the first move
            log[0] = [CHANCE, {"deal": {**deal["deal"], "pizzas": new["pizzas"]}}]
        if state["phase"] == "chillies":
            chosen = list(state["chillies"])
            for index, (mover, move) in enumerate(log):
                if "chillies" in move and mover != seat:
                    chosen[mover] = random_assignment(state["chillies_held"][mover], rng)
                    log[index] = [mover, {"chillies": chosen[mover]}]
            new["chillies"] = chosen
        new["log"] = log
        return new

    # --- chance --------------------------------------------------------------------------------
    def sample_chance(self, state: State, rng: random.Random) -> Move:
        if state["phase"] != "deal":
            raise IllegalMove(gettext_noop("No chance move is due."))
        return {"deal": {"first_chef": int(rng.random() * state["n"]), "pizzas": deal_pizzas(rng)}}

    def random_playout(self, state: State, rng: random.Random) -> list[int]:
        """The reference random game (``Engine.random_playout``), played on lean per-seat counts
        (``_lean_random_scores``) with the very same draws. La Marianne's swap moves slice ids
        about, so while the card is still to be played the game goes on the engine's states."""
        while not state["marianne_used"] and state["phase"] in ("deal", "cut", "take"):
            seat = rng.choice(self.to_move(state))
            state = self.advance(state, seat, self.random_step(state, seat, rng))
        return _lean_random_scores(state, rng)

    def playout_outcome(self, state: State, rng: random.Random) -> tuple[list[int], list[int]]:
        """The analysis's playouts are level 3's (``lean_playout_scores``: every seat takes the
        portion worth most to it and keeps what a majority needs): random players eat half of
        what they take, which blurs a majority thrown away into a small loss (measured with
        ``bench/bench_analysis_policy.py``: four truffles eaten at a table of three, an
        expected rank 0.27 worse with random playouts, 0.95 with these)."""
        from .part_du_chef_bot import lean_playout_scores  # the bots import this module

        scores = lean_playout_scores(state, rng)
        return scores, competition_ranks(scores)

    # --- scoring -------------------------------------------------------------------------------
    def partial_scores(self, state: State) -> list[int]:
        return [o + s for o, s in zip(state["olives"], state["slice_points"], strict=True)]

    def kind_counts(self, state: State, seat: int) -> dict[str, int]:
        """Kept slices per kind, without chillies."""
        counts = dict.fromkeys(KINDS, 0)
        pizzas = state["pizzas"]
        for slice_id in state["kept"][seat]:
            letter = pizzas[slice_id // SLICES_PER_PIZZA][slice_id % SLICES_PER_PIZZA][0]
            if letter in counts:  # a chilli or a burnt slice is of no kind
                counts[letter] += 1
        return counts

    def suggested_chillies(
        self, state: State, seat: int, raw: list[dict[str, int]] | None = None
    ) -> dict[str, int]:
        """The spec's suggested assignment of ``seat``'s chillies (kinds with none left out):
        what a bot or a player out of time assigns, and what the page pre-selects. ``raw``: each
        seat's ``kind_counts``, when the caller has them already."""
        if raw is None:
            raw = [self.kind_counts(state, s) for s in range(state["n"])]
        others = raw[:seat] + raw[seat + 1 :]
        chillies = self.held(state, seat, CHILLI)
        return compact_assignment(best_chilli_assignment(raw[seat], others, chillies))

    def chilli_assignment(
        self, state: State, seat: int, raw: list[dict[str, int]] | None = None
    ) -> dict[str, int]:
        """The assignment that counts for ``seat``: the one chosen, or the suggestion while the
        seat has not chosen yet (so that scores can be judged before the end)."""
        chosen = state["chillies"][seat] if state["chillies"] is not None else None
        return chosen if chosen is not None else self.suggested_chillies(state, seat, raw)

    def final_counts(self, state: State) -> list[dict[str, int]]:
        """Each seat's kind counts with its chillies assigned."""
        raw = [self.kind_counts(state, seat) for seat in range(state["n"])]
        out = []
        for seat in range(state["n"]):
            counts = dict(raw[seat])
            if self.held(state, seat, CHILLI):
                for kind, count in self.chilli_assignment(state, seat, raw).items():
                    counts[kind] += count
            out.append(counts)
        return out

    def held(self, state: State, seat: int, code: str) -> int:
        pizzas = state["pizzas"]
        return sum(
            1
            for i in state["kept"][seat]
            if pizzas[i // SLICES_PER_PIZZA][i % SLICES_PER_PIZZA] == code
        )

    def breakdown(self, state: State) -> list[dict[str, int]]:
        counts = self.final_counts(state)
        rows = []
        for seat in range(state["n"]):
            majority = majority_points(counts[seat], counts[:seat] + counts[seat + 1 :])
            variety = VARIETY_MULTIPLIER * min(counts[seat].values())
            burnt = -BURNT_PENALTY * self.held(state, seat, BURNT)
            olives, slice_points = state["olives"][seat], state["slice_points"][seat]
            rows.append(
                {
                    "olives": olives,
                    "slice_points": slice_points,
                    "majority": majority,
                    "variety": variety,
                    "burnt": burnt,
                    "total": olives + slice_points + majority + variety + burnt,
                }
            )
        return rows

    def result(self, state: State) -> GameResult:
        rows = self.breakdown(state)
        scores = [row["total"] for row in rows]
        return GameResult(scores, competition_ranks(scores), {"breakdown": rows})

    # --- views ---------------------------------------------------------------------------------
    def revealed_rounds(self, state: State) -> int:
        """How many pizzas everyone has seen: all up to the current round's."""
        if state["pizzas"] is None:
            return 0
        return min(PIZZAS, state["round"] + 1)

    def view(self, state: State, seat: int | None) -> dict[str, Any]:
        n = state["n"]
        revealed = self.revealed_rounds(state)
        pizzas = [list(p) for p in state["pizzas"][:revealed]] if state["pizzas"] else []
        current = state["round"] if state["phase"] in ("cut", "take") else None
        portions = None
        if state["portions"] is not None:
            portions = [
                {"index": j, "slices": list(slices), "taken_by": state["taken_by"][j]}
                for j, slices in enumerate(state["portions"])
            ]
        return {
            "players": n,
            "you": seat,
            "phase": state["phase"],
            "round": current,
            "rounds": PIZZAS,
            "chef": self.chef(state) if current is not None else None,
            "first_chef": state["first_chef"],
            "to_move": [s for s in self.to_move(state) if s != CHANCE],
            "pizzas": pizzas,
            "cut": state["cut"],
            "portions": portions,
            "seats": [
                {
                    "seat": s,
                    "kept": list(state["kept"][s]),
                    "eaten": list(state["eaten"][s]),
                    "olives": state["olives"][s],
                    "slice_points": state["slice_points"][s],
                    "counts": self.kind_counts(state, s) if state["pizzas"] else {},
                }
                for s in range(n)
            ],
            "marianne": (
                {"in_play": not state["marianne_used"], "holder": self.marianne_holder(state)}
                if state["options"]["marianne"]
                else None
            ),
            "chillies": self._chillies_view(state, seat),
        }

    def _chillies_view(self, state: State, seat: int | None) -> dict[str, Any] | None:
        """The chilli step as ``seat`` may see it: who holds how many and who has chosen; the
        choices themselves only to their owner until the last is in, then to everyone."""
        if state["chillies"] is None:
            return None
        n = state["n"]
        over = state["phase"] == "over"
        chosen = state["chillies"]
        open_to_me = not over and seat is not None and seat in self.to_move(state)
        return {
            "held": list(state["chillies_held"]),
            "chosen": [chosen[s] is not None for s in range(n)],
            "assignments": [
                dict(chosen[s]) if chosen[s] is not None and (over or s == seat) else None
                for s in range(n)
            ],
            "suggested": self.suggested_chillies(state, seat) if open_to_me else None,
        }

    # --- records -------------------------------------------------------------------------------
    def record_header(self, state: State, seat: int | None) -> dict[str, Any]:
        if state["pizzas"] is None:
            return {"first_chef": None, "pizzas": None}
        shown = PIZZAS if state["phase"] == "over" else self.revealed_rounds(state)
        pizzas = [list(p) if k < shown else None for k, p in enumerate(state["pizzas"])]
        return {"first_chef": state["first_chef"], "pizzas": pizzas}

    def record_move(self, seat: int, move: Move, viewer: int | None, final: bool) -> Move | None:
        if seat == CHANCE:
            return None  # the deal lives in the header
        if "chillies" in move and viewer != seat and not final:
            # A chilli choice is secret until the last is in, which ends the game.
            return None
        return {"seat": seat, **move}

    def header_moves(self, record: dict[str, Any], n_players: int) -> list[tuple[str, int, Move]]:
        for field in ("first_chef", "pizzas"):
            if field not in record:
                raise MalformedRecord(f"a La Part du Chef record needs '{field}'")
        deal = {"first_chef": record["first_chef"], "pizzas": record["pizzas"]}
        return [("deal", CHANCE, {"deal": deal})]


# --- the deal ----------------------------------------------------------------------------------
def deal_pizzas(rng: random.Random) -> list[list[str]]:
    """Shuffle the 60 slices that are not burnt (a random slice of each kind is its finisher),
    give pizza k shuffled slices 12k..12k+11, then insert its burnt slice at a random position
    (``_deal_ids``, which ``random_playout`` draws alike)."""
    return [[CODE_OF_ID[code] for code in pizza] for pizza in _deal_ids(rng)]


def deal_after(revealed: list[list[str]], rng: random.Random) -> list[list[str]]:
    """The ``revealed`` pizzas followed by a random deal of the slices they do not hold, as the
    deal would make them: what a seat that has seen only ``revealed`` cannot tell from the real
    later pizzas. A kind whose finisher is not among ``revealed`` has it on one of its unseen
    slices."""
    if revealed:
        seen = Counter(code.rstrip("*") for pizza in revealed for code in pizza if code != BURNT)
        slices = [code for code, count in SLICE_COUNTS.items() for _ in range(count - seen[code])]
        starred = {kind_of(code) for pizza in revealed for code in pizza if is_finisher(code)}
        kind_places = [
            [i for i, code in enumerate(slices) if kind_of(code) == kind]
            for kind in KINDS
            if kind not in starred
        ]
    else:
        # The whole deal (every search world starts from one): the same draws, tables made once.
        slices = list(_ALL_SLICES)
        kind_places = _ALL_KIND_PLACES
    for of_kind in kind_places:
        slices[rng.choice(of_kind)] += "*"
    rng.shuffle(slices)
    pizzas = [list(pizza) for pizza in revealed]
    for k in range(PIZZAS - len(revealed)):
        pizza = slices[12 * k : 12 * k + 12]
        pizza.insert(rng.randrange(SLICES_PER_PIZZA), BURNT)
        pizzas.append(pizza)
    return pizzas


_ALL_SLICES = tuple(code for code, count in SLICE_COUNTS.items() for _ in range(count))
_ALL_KIND_PLACES = [
    [i for i, code in enumerate(_ALL_SLICES) if kind_of(code) == kind] for kind in KINDS
]


_DEALT_COUNTS = Counter(SLICE_COUNTS)


def check_pizzas(pizzas: Any) -> None:
    """Refuse a deal that is not 5 pizzas of 13 slices with the game's exact slices."""
    if (
        not isinstance(pizzas, list)
        or len(pizzas) != PIZZAS
        or not all(isinstance(p, list) and len(p) == SLICES_PER_PIZZA for p in pizzas)
    ):
        raise IllegalMove(gettext_noop("The deal must be 5 pizzas of 13 slices each."))
    codes = [code for pizza in pizzas for code in pizza]
    if not all(isinstance(code, str) and code in VALID_CODES for code in codes):
        raise IllegalMove(gettext_noop("Every slice must be a code such as 'M2' or 'R2*'."))
    for k, pizza in enumerate(pizzas):
        if pizza.count(BURNT) != 1:
            raise IllegalMove(
                gettext_noop("Pizza {pizza} must have exactly one burnt slice."), pizza=k
            )
    finishers = [code for code in codes if is_finisher(code)]
    if sorted(kind_of(code[:-1]) or "?" for code in finishers) != sorted(KINDS):
        raise IllegalMove(gettext_noop("Each kind must have exactly one double finisher."))
    if Counter(code.rstrip("*") for code in codes if code != BURNT) != _DEALT_COUNTS:
        raise IllegalMove(gettext_noop("The deal does not hold the game's 65 slices."))


VALID_CODES = frozenset(
    [*SLICE_COUNTS, BURNT] + [code + "*" for code in SLICE_COUNTS if kind_of(code)]
)


# --- end scoring -------------------------------------------------------------------------------
def majority_points(mine: dict[str, int], others: list[dict[str, int]]) -> int:
    """The values of the kinds where ``mine`` is at least 1 and no other count is higher."""
    return sum(
        MAJORITY_VALUE[k]
        for k in KINDS
        if mine[k] >= 1 and all(mine[k] >= other[k] for other in others)
    )


def compact_assignment(assignment: dict[str, int]) -> dict[str, int]:
    """A chilli assignment in kind order, kinds with no chilli left out: ``{"T": 2}``."""
    return {kind: assignment[kind] for kind in KINDS if assignment.get(kind)}


def random_assignment(chillies: int, rng: random.Random) -> dict[str, int]:
    """Each chilli on a kind drawn at random (as ``random_playout`` draws it)."""
    kinds = [KINDS[int(rng.random() * 5)] for _ in range(chillies)]
    return compact_assignment({kind: kinds.count(kind) for kind in KINDS})


def chillies_phrase(assignment: dict[str, int]) -> Any:
    """ "2 × Truffe, 1 × Reine": each kind with its chillies, the kind's name translatable."""
    return joined(
        [
            sentence(gettext_noop("{count} × {kind}"), count=count, kind=Sentence(KIND_NAMES[kind]))
            for kind, count in compact_assignment(assignment).items()
        ],
        LIST_SEPARATOR,
    )


def chilli_assignments(chillies: int) -> Iterator[dict[str, int]]:
    """Every way to give ``chillies`` chillies to the five kinds."""
    for cuts in itertools.combinations_with_replacement(KINDS, chillies):
        yield {k: cuts.count(k) for k in KINDS}


def best_chilli_assignment(
    raw: dict[str, int], others_raw: list[dict[str, int]], chillies: int
) -> dict[str, int]:
    """The assignment that maximises this player's own majority + variety points against the
    other players' counts without chillies; ties go to more chillies on T, then V, F, R, M."""
    if chillies == 0:
        return dict.fromkeys(KINDS, 0)
    # Bots judge many positions that differ only elsewhere: remember the answers.
    key = (
        tuple(raw[k] for k in KINDS),
        tuple(tuple(other[k] for k in KINDS) for other in others_raw),
        chillies,
    )
    return dict(_best_chilli_assignment(*key))


@functools.lru_cache(maxsize=1 << 16)
def _best_chilli_assignment(
    raw_counts: tuple[int, ...], others_counts: tuple[tuple[int, ...], ...], chillies: int
) -> tuple[tuple[str, int], ...]:
    raw = dict(zip(KINDS, raw_counts, strict=True))
    others_raw = [dict(zip(KINDS, other, strict=True)) for other in others_counts]

    def worth(assignment: dict[str, int]) -> tuple[int, tuple[int, ...]]:
        counts = {k: raw[k] + assignment[k] for k in KINDS}
        points = majority_points(counts, others_raw) + VARIETY_MULTIPLIER * min(counts.values())
        return points, tuple(assignment[k] for k in CHILLI_TIE_ORDER)

    return tuple(max(chilli_assignments(chillies), key=worth).items())


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


# --- the lean random game ----------------------------------------------------------------------
# A random game needs only what scores and what the draws depend on: each seat's kept slices per
# kind (a steal moves one slice of a kind, and which one never changes a score or a later draw),
# its points so far, its burnt slices and its chillies. Slices are small ints (``CODE_OF_ID``), the
# cuts and their portions are worked out once, and nothing is copied from move to move.

#: Every code a deal may hold, by id, and what each id is.
CODE_OF_ID: tuple[str, ...] = tuple(sorted(VALID_CODES))
ID_OF_CODE: dict[str, int] = {code: i for i, code in enumerate(CODE_OF_ID)}
_KIND_OF_ID = tuple(KINDS.index(kind_of(c)) if kind_of(c) else -1 for c in CODE_OF_ID)
_OLIVES_OF_ID = tuple(olives_of(c) for c in CODE_OF_ID)
_FINISHER_OF_ID = tuple(is_finisher(c) for c in CODE_OF_ID)
_STARRED_ID = {ID_OF_CODE[c]: ID_OF_CODE.get(c + "*", -1) for c in SLICE_COUNTS}
_BURNT_ID = ID_OF_CODE[BURNT]
_MAJORITY_BY_KIND = tuple(MAJORITY_VALUE[k] for k in KINDS)

#: The 60 slices that are not burnt, as ids (``_ALL_SLICES``).
_PLAIN_IDS = tuple(ID_OF_CODE[c] for c in _ALL_SLICES)

#: Every cut (sorted start positions) for each number of players, in the order the random move
#: draws from; and each cut's portions as positions, in the order of ``portions_of_cut``.
CUTS: dict[int, list[tuple[int, ...]]] = {
    n: list(itertools.combinations(range(SLICES_PER_PIZZA), n)) for n in range(2, 6)
}
_CUT_POSITIONS = {
    n: [
        tuple(tuple(i % SLICES_PER_PIZZA for i in p) for p in _portions_of_cut(cut, 0))
        for cut in cuts
    ]
    for n, cuts in CUTS.items()
}


def _deal_ids(rng: random.Random) -> list[list[int]]:
    """The deal as code ids: a random slice of each kind made its finisher, the 60 slices in a
    random order (sorted by a random key each: a uniform shuffle at half ``rng.shuffle``'s cost),
    12 to a pizza, and each pizza's burnt slice put at a random position."""
    draw = rng.random
    slices = list(_PLAIN_IDS)
    for places in _ALL_KIND_PLACES:
        place = places[int(draw() * len(places))]
        slices[place] = _STARRED_ID[slices[place]]
    keys = [draw() for _ in slices]
    order = sorted(range(len(slices)), key=keys.__getitem__)
    pizzas = []
    for k in range(PIZZAS):
        pizza = [slices[i] for i in order[12 * k : 12 * k + 12]]
        pizza.insert(int(draw() * SLICES_PER_PIZZA), _BURNT_ID)
        pizzas.append(pizza)
    return pizzas


def _lean_random_scores(state: State, rng: random.Random) -> list[int]:
    """The final scores of the random game from ``state`` (La Marianne out of play), drawing
    exactly what ``Engine.random_playout`` draws through ``to_move``, ``random_step`` and
    ``advance``: the seat (``rng.choice`` among those to move), then the move's draws in
    ``random_move``'s order."""
    n = state["n"]
    choice, draw = rng.choice, rng.random
    phase = state["phase"]
    if phase == "over":
        return ENGINE.result(state).scores
    if phase == "deal":
        choice((CHANCE,))
        first_chef = int(draw() * n)
        pizzas = _deal_ids(rng)
        round_now = 0
        counts = [[0, 0, 0, 0, 0] for _ in range(n)]
        points, burnt, chillies = [0] * n, [0] * n, [0] * n
    else:
        first_chef = state["first_chef"]
        pizzas = [[ID_OF_CODE[code] for code in pizza] for pizza in state["pizzas"]]
        round_now = state["round"]
        counts, points, burnt, chillies = lean_tallies(state)
    kind_of_id, olives_of_id, finisher_of_id = _KIND_OF_ID, _OLIVES_OF_ID, _FINISHER_OF_ID
    cuts, cut_positions = CUTS[n], _CUT_POSITIONS[n]
    seat_range = range(n)
    one = (0,)  # the seat's draw when one seat moves: ``rng.choice`` of a list of one
    for round_number in range(round_now, PIZZAS):
        pizza = pizzas[round_number]
        chef = (first_chef + round_number) % n
        if round_number == round_now and phase == "take":
            portions = [
                [pizza[i % SLICES_PER_PIZZA] for i in portion] for portion in state["portions"]
            ]
            free = [j for j, owner in enumerate(state["taken_by"]) if owner is None]
            done = state["choosers_done"]
        else:
            choice(one)
            positions = cut_positions[int(draw() * len(cuts))]
            portions = [[pizza[i] for i in portion] for portion in positions]
            free = list(seat_range)
            done = 0
        for turn in range(done, n):
            seat = (chef + 1 + turn) % n
            choice(one)
            portion = portions[free.pop(int(draw() * len(free)))]
            mine = counts[seat]
            gained = 0
            finishers = []
            for code in portion:
                kind = kind_of_id[code]
                if kind >= 0:
                    gained += 1
                    if draw() < 0.5:  # eaten
                        gained += olives_of_id[code]
                    else:
                        mine[kind] += 1
                        if finisher_of_id[code]:
                            finishers.append(kind)
                elif code == _BURNT_ID:
                    burnt[seat] += 1
                else:
                    gained += 1
                    chillies[seat] += 1
            points[seat] += gained
            if finishers:
                finishers.sort()
                for kind in finishers:
                    targets = [o for o in seat_range if o != seat and counts[o][kind]]
                    pick = int(draw() * (len(targets) + 1))
                    if pick:
                        counts[targets[pick - 1]][kind] -= 1
                        mine[kind] += 1
    if phase == "chillies":
        chosen = [
            None if assignment is None else [assignment.get(kind, 0) for kind in KINDS]
            for assignment in state["chillies"]
        ]
        held = state["chillies_held"]
    else:
        chosen, held = [None] * n, chillies
    while True:
        seats = [s for s in seat_range if chosen[s] is None and held[s]]
        if not seats:
            break
        seat = choice(seats)
        assignment = [0, 0, 0, 0, 0]
        for _ in range(held[seat]):
            assignment[int(draw() * 5)] += 1
        chosen[seat] = assignment
    return _lean_final_scores(counts, points, burnt, chosen)


def lean_tallies(state: State) -> tuple[list[list[int]], list[int], list[int], list[int]]:
    """Each seat's kept slices per kind, points so far, burnt slices and chillies."""
    pizzas = state["pizzas"]
    counts, burnt, chillies = [], [], []
    for kept in state["kept"]:
        mine = [0, 0, 0, 0, 0]
        burnt_here = chillies_here = 0
        for slice_id in kept:
            code = pizzas[slice_id // SLICES_PER_PIZZA][slice_id % SLICES_PER_PIZZA]
            kind = KIND_INDEX_OF_CODE[code]
            if kind >= 0:
                mine[kind] += 1
            elif code == BURNT:
                burnt_here += 1
            else:
                chillies_here += 1
        counts.append(mine)
        burnt.append(burnt_here)
        chillies.append(chillies_here)
    points = [o + s for o, s in zip(state["olives"], state["slice_points"], strict=True)]
    return counts, points, burnt, chillies


def _lean_final_scores(
    counts: list[list[int]],
    points: list[int],
    burnt: list[int],
    assignments: list[list[int] | None],
) -> list[int]:
    """``breakdown``'s totals from lean tallies, each seat's chillies assigned as given."""
    final = [
        mine if extra is None else [c + e for c, e in zip(mine, extra, strict=True)]
        for mine, extra in zip(counts, assignments, strict=True)
    ]
    best = [max(column) for column in zip(*final, strict=True)]
    scores = []
    for seat, mine in enumerate(final):
        total = points[seat] - BURNT_PENALTY * burnt[seat] + VARIETY_MULTIPLIER * min(mine)
        for kind in range(5):
            if mine[kind] >= 1 and mine[kind] >= best[kind]:
                total += _MAJORITY_BY_KIND[kind]
        scores.append(total)
    return scores


ENGINE = register(PartDuChef())
