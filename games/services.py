"""The only code that changes a match. Every function runs in one transaction, locks the match row
first, checks in a fixed order and tells the table's listeners after the commit (never before: a
rolled-back change must not ring the doorbell).

HTML views, the JSON API, consumers and the worker all call these functions; none has rules of
its own.
"""

from __future__ import annotations

import hashlib
import json
import random
from collections.abc import Callable
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from django.conf import settings
from django.contrib.auth.models import AbstractBaseUser
from django.db import IntegrityError, transaction
from django.db.models import F, Prefetch, Q, QuerySet
from django.dispatch import Signal
from django.utils import timezone
from django.utils.translation import gettext as _

from . import notify, rows
from .engines import CHANCE, Engine, IllegalMove, get_engine
from .engines.base import competition_ranks
from .models import Invitation, Match, Move, Seat

#: Sent by ``end_match`` once it has saved a match that ended, however it ended (``match``: the
#: Match as saved, finished or aborted, with its ``end_reason``). It runs inside the transaction
#: that ends the match: ratings and arenas read the saved rows, and what they write commits or
#: rolls back with the end.
match_ended = Signal()

TURN_SECONDS_CHOICES = (15, 30, 60, 120, 300, 900, 3600, 86400)
DEFAULT_RANKED_TURN_SECONDS = 60
TIMEOUTS_TO_ABANDON = 3
#: Bots of this level and above think for a time budget (``BOT_LEVEL3_BUDGET``): the worker plays
#: their turns, one move per job, never the request of a person who is waiting (issue 13).
WORKER_BOT_LEVEL = 3
#: The worker's tries at a table whose due job fails, and the pause after the first failure
#: (doubled after each further one), before it calls the match off.
JOB_TRIES = 5
JOB_RETRY_SECONDS = 2


class ServiceError(Exception):
    """A refusal with a sentence a person can act on; ``status`` is the HTTP status for the API."""

    status = 400

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class BadRequest(ServiceError):
    status = 400


class NotAllowed(ServiceError):
    status = 403


class NotFound(ServiceError):
    status = 404


class Conflict(ServiceError):
    status = 409


class TooMany(ServiceError):
    status = 429


def explain(error: IllegalMove) -> str:
    """An engine's refusal in the active language (the engines speak English and mark their
    sentences with ``gettext_noop``); records and ``manage.py replay`` keep ``str(error)``."""
    if not error.params:
        return _(error.template)
    try:
        return _(error.template).format(**error.params)
    except (KeyError, IndexError, ValueError):
        # A translation that broke its placeholders must not turn a refusal into a crash.
        return str(error)


def checked_options(engine: Engine, seats: int, options: Any) -> dict[str, Any]:
    """The table options with their defaults, or the engine's refusal as a BadRequest."""
    try:
        return engine.normalise_options(seats, options)
    except IllegalMove as error:
        raise BadRequest(explain(error)) from None


# --- reading -------------------------------------------------------------------------------------
def engine_for(match: Match) -> Engine:
    return get_engine(match.game)


def seat_of(match: Match, user: AbstractBaseUser | None) -> Seat | None:
    if user is None or not user.is_authenticated:
        return None
    return next((s for s in match.seats.all() if s.user_id == user.pk), None)


def own_seat(match: Match, user: AbstractBaseUser) -> Seat:
    """``user``'s seat at ``match``, for what only a seated player may do."""
    seat = seat_of(match, user)
    if seat is None:
        raise NotAllowed(_("You have no seat at this table."))
    return seat


#: Who else may watch a private table: rules ``(match, user) -> bool`` that other apps register
#: (games knows nothing of them; the arena lets its entrants watch the tables it opened).
_WATCH_RULES: list[Callable[[Match, AbstractBaseUser], bool]] = []


def register_watch_rule(
    rule: Callable[[Match, AbstractBaseUser], bool],
) -> Callable[[Match, AbstractBaseUser], bool]:
    if rule not in _WATCH_RULES:
        _WATCH_RULES.append(rule)
    return rule


def may_watch(match: Match, user: AbstractBaseUser | None, invite_code: str | None = None) -> bool:
    """Public tables are open to every spectator; a private one to its players, its invitees,
    whoever has its invitation code, and whoever a registered rule lets in."""
    if not match.private:
        return True
    if invite_code and invite_code == match.invite_code:
        return True
    if seat_of(match, user) is not None or is_invited(match, user):
        return True
    return user is not None and user.is_authenticated and any(r(match, user) for r in _WATCH_RULES)


def is_invited(match: Match, user: AbstractBaseUser | None) -> bool:
    if user is None or not user.is_authenticated:
        return False
    return Invitation.objects.filter(match=match, to_user=user).exists()


def lobby_tables(user: AbstractBaseUser | None) -> QuerySet[Match]:
    """Open tables the lobby shows ``user``: the public ones and private ones they are invited to."""
    if user is None or not user.is_authenticated:
        return Match.objects.visible_in_lobby()
    return (
        Match.objects.open()
        .filter(
            Q(private=False) | Q(pk__in=Invitation.objects.filter(to_user=user).values("match"))
        )
        .distinct()
    )


def _locked(match_id: int, with_seats: bool = False) -> Match:
    """The match row, locked. ``with_seats``: its seats (with their players) read at once and
    kept, for a change that adds or removes no seat (``match.seats.all()`` then costs no query;
    the statements are built once, ``games.rows``)."""
    try:
        if with_seats:
            match = rows.match_with_seats(match_id, lock=True)
            if match is not None:
                return match
        else:
            return Match.objects.select_for_update().get(pk=match_id)
    except (Match.DoesNotExist, ValueError, TypeError):
        pass
    raise NotFound(_("There is no such table."))


def read_table(match_id: int) -> Match | None:
    """The match with its seats and their players, unlocked (what a look at a table reads), or
    None if there is none."""
    try:
        return rows.match_with_seats(match_id)
    except (ValueError, TypeError):
        return None


def seats_with_players() -> Prefetch:
    """A match's seats and their players in one query (``prefetch_related`` on matches)."""
    return Prefetch("seats", queryset=Seat.objects.select_related("user"))


def _locked_for(
    match_id: int,
    user: AbstractBaseUser | None,
    invite_code: str | None = None,
    with_seats: bool = False,
) -> Match:
    """The match row, locked, if ``user`` may see the table: a private table they may not see
    answers exactly like a missing one, so that its existence is not given away."""
    match = _locked(match_id, with_seats)
    if not may_watch(match, user, invite_code):
        raise NotFound(_("There is no such table."))
    return match


# --- opening and joining tables ------------------------------------------------------------------
def create_table(
    user: AbstractBaseUser,
    game: str,
    *,
    mode: str = Match.Mode.FRIENDLY,
    seats: int | None = None,
    options: dict[str, Any] | None = None,
    private: bool = False,
    turn_seconds: int | None = None,
) -> Match:
    """Open a table; its creator takes the first seat (seats are drawn again when it starts)."""
    try:
        engine = get_engine(game)
    except KeyError:
        raise BadRequest(_("There is no game called %(game)r.") % {"game": game}) from None
    if mode not in Match.Mode.values:
        raise BadRequest(_("The mode must be 'friendly' or 'ranked'."))
    seats = engine.min_players if seats is None else seats
    if not isinstance(seats, int) or isinstance(seats, bool):
        raise BadRequest(_("The number of seats must be a whole number."))
    options = checked_options(engine, seats, options)
    if not isinstance(private, bool):
        raise BadRequest(_("'private' must be true or false."))
    turn_seconds = _checked_turn_seconds(mode, turn_seconds)
    with transaction.atomic():
        match = Match.objects.create(
            game=engine.slug,
            mode=mode,
            seats_count=seats,
            options=options,
            private=private,
            turn_seconds=turn_seconds,
            created_by=user,
        )
        Seat.objects.create(match=match, index=0, user=user)
        _changed(match, lobby=True)
    return match


def _checked_turn_seconds(mode: str, turn_seconds: Any) -> int | None:
    if turn_seconds is None:
        return DEFAULT_RANKED_TURN_SECONDS if mode == Match.Mode.RANKED else None
    if not isinstance(turn_seconds, int) or isinstance(turn_seconds, bool):
        raise BadRequest(_("The turn timer must be a number of seconds."))
    if not 10 <= turn_seconds <= 7 * 86400:
        raise BadRequest(_("The turn timer must be between 10 seconds and 7 days."))
    return turn_seconds


def join_table(user: AbstractBaseUser, match_id: int, invite_code: str | None = None) -> Match:
    """Take the first free seat; the match starts by itself when the last seat is taken."""
    with transaction.atomic():
        # The seats are read once, with the lock, and kept, the new one added to them: what
        # follows read them four times (who sits, which seat is free, whether the table is
        # full, whose turn is a bot's), and the watchers' render once more.
        match = _locked_for(match_id, user, invite_code, with_seats=True)
        if not match.is_open:
            raise Conflict(_("This table has already started."))
        if seat_of(match, user) is not None:
            raise Conflict(_("You already have a seat at this table."))
        seats = list(match.seats.all())
        taken = {s.index for s in seats}
        free = [i for i in range(match.seats_count) if i not in taken]
        if not free:
            raise Conflict(_("This table is full."))
        try:
            with transaction.atomic():
                seat = Seat.objects.create(match=match, index=free[0], user=user)
        except IntegrityError:
            raise Conflict(_("This table is full.")) from None
        rows.keep_seats(match, [*seats, seat])
        _start_if_full(match)
        _changed(match, lobby=True)
    return match


def may_add_bot(match: Match, user: AbstractBaseUser | None) -> bool:
    """spec/api.md: the creator of a friendly table, while seated at it, fills free seats with
    bots."""
    return (
        match.mode == Match.Mode.FRIENDLY
        and match.created_by_id is not None
        and seat_of(match, user) is not None
        and match.created_by_id == user.pk
    )


def add_bot(user: AbstractBaseUser, match_id: int, level: Any = 1) -> Match:
    """Fill a free seat of a friendly table with a bot of ``level``."""
    with transaction.atomic():
        match = _locked_for(match_id, user)
        if seat_of(match, user) is None or match.created_by_id != user.pk:
            raise NotAllowed(_("Only the player who opened this table may invite a bot."))
        if match.mode != Match.Mode.FRIENDLY:
            raise NotAllowed(_("Bots only play at friendly tables."))
        if not match.is_open:
            raise Conflict(_("This table has already started."))
        if (
            not isinstance(level, int)
            or isinstance(level, bool)
            or level not in engine_for(match).bot_levels
        ):
            raise BadRequest(_("There is no bot of that level for this game."))
        taken = {s.index for s in match.seats.all()}
        free = [i for i in range(match.seats_count) if i not in taken]
        if not free:
            raise Conflict(_("This table is full."))
        Seat.objects.create(match=match, index=free[0], user=None, bot_level=level)
        _start_if_full(match)
        _changed(match, lobby=True)
    return match


def invite_friend(user: AbstractBaseUser, match_id: int, friend: AbstractBaseUser) -> Invitation:
    """A seated player invites a friend to an open table; the friend is told at once, on
    whatever page they are."""
    from players.friends import friend_ids

    with transaction.atomic():
        match = _locked_for(match_id, user)
        if seat_of(match, user) is None:
            raise NotAllowed(_("Only a player at this table may invite."))
        if not match.is_open:
            raise Conflict(_("This table has already started."))
        if friend.pk not in friend_ids(user):
            raise NotAllowed(_("You can only invite your friends."))
        if seat_of(match, friend) is not None:
            raise Conflict(_("%(name)s already has a seat here.") % {"name": friend})
        invitation, created = Invitation.objects.get_or_create(
            match=match, to_user=friend, defaults={"from_user": user}
        )
        if not created and invitation.dismissed_at is not None:
            # Invited again after closing it: show it again.
            invitation.dismissed_at = None
            invitation.save(update_fields=["dismissed_at"])
        friend_id, invitation_id = friend.pk, invitation.pk
        transaction.on_commit(
            lambda: notify.send(
                notify.user_group(friend_id), {"type": "user.invited", "invitation": invitation_id}
            )
        )
        _changed(match, lobby=True)
    return invitation


def leave_table(user: AbstractBaseUser, match_id: int) -> Match:
    """Leave a table that has not started; the table closes when nobody is left."""
    with transaction.atomic():
        match = _locked_for(match_id, user)
        seat = own_seat(match, user)
        if not match.is_open:
            raise Conflict(_("The match has started: you can no longer leave it."))
        seat.delete()
        if match.seats.filter(user__isnull=False).exists():
            _changed(match, lobby=True)
        else:
            end_match(match, Match.Status.ABORTED, Match.EndReason.EVERYONE_LEFT)
    return match


def start_match_for_players(
    game: str,
    users: list[AbstractBaseUser],
    *,
    mode: str = Match.Mode.RANKED,
    options: dict[str, Any] | None = None,
    turn_seconds: int | None = None,
    private: bool = False,
) -> Match:
    """Seat ``users`` at a new table of their own and start it at once (their seats are drawn
    when it starts, as at every table): how an arena seats the players it pairs. It joins the
    caller's transaction."""
    engine = get_engine(game)
    if len({u.pk for u in users}) != len(users):
        raise BadRequest(_("A player can take only one seat."))
    options = checked_options(engine, len(users), options)
    turn_seconds = _checked_turn_seconds(mode, turn_seconds)
    with transaction.atomic():
        match = Match.objects.create(
            game=engine.slug,
            mode=mode,
            seats_count=len(users),
            options=options,
            private=private,
            turn_seconds=turn_seconds,
        )
        Seat.objects.bulk_create(
            Seat(match=match, index=index, user=user) for index, user in enumerate(users)
        )
        _start_if_full(match)
        _changed(match)
    return match


def _start_if_full(match: Match) -> None:
    seats = list(match.seats.all())
    if len(seats) < match.seats_count:
        return
    seats = _seat_in_random_order(match, seats)
    if rows.has_kept_seats(match):
        rows.keep_seats(match, seats)  # in their new order
    engine = engine_for(match)
    match.state = engine.new_game(match.seats_count, match.options)
    match.status = Match.Status.PLAYING
    match.started_at = timezone.now()
    _run_automatic_moves(match, engine, {s.index: s for s in seats})


def _seat_in_random_order(match: Match, seats: list[Seat]) -> list[Seat]:
    """spec/api.md "Seats": when a match starts its players take their seats in an order drawn
    from the match's secret seed, so nobody moves first for having opened the table."""
    order = sorted(seats, key=lambda seat: seat.index)
    _seeded(match, "seats").shuffle(order)
    # A seat number is unique at a table: everyone steps aside first, then sits down.
    Seat.objects.filter(match=match).update(index=F("index") + match.seats_count)
    for index, seat in enumerate(order):
        seat.index = index
    rows.save_rows(order, ["index"], signals=False)  # as ``bulk_update``: no signal
    return order


# --- playing -------------------------------------------------------------------------------------
def play(match_id: int, user: AbstractBaseUser, move: Any, version: Any) -> Match:
    """Play ``move`` for the user's seat. Checks in order: the seat, the match still running, the
    turn, the version, the rules; then applies, logs, snapshots, bumps the version, sets the next
    deadline and, when the game is over, finishes the match.

    A table whose last move this process saved is first played on that save, without reading
    it (``_play_on_kept``); whatever that cannot settle for sure is settled on the locked read."""
    played = _play_on_kept(match_id, user, move, version)
    if played is not None:
        return played
    with transaction.atomic():
        # A move adds no seat: the seats are read once, with the lock, and kept for the answer.
        match = _locked_for(match_id, user, with_seats=True)
        seat, engine = _checked_move(match, user, move, version)
        _play_checked(match, engine, seat.index, move)
        wrote_seat = bool(seat.timeouts_in_row)
        if wrote_seat:
            seat.timeouts_in_row = 0
            seat.save(update_fields=["timeouts_in_row"])
        # The transaction's last statement: its writes and commit go in one round trip.
        _changed(match, last=True)
    if not wrote_seat:
        rows.keep_for_next_move(match)
    return match


def _checked_move(
    match: Match, user: AbstractBaseUser, move: Any, version: Any
) -> tuple[Seat, Engine]:
    """The user's seat and the game, once ``move`` passed every check of ``play``, in its
    order; else the error the player gets."""
    seat = own_seat(match, user)
    if not match.is_playing:
        raise Conflict(_("This match is not being played."))
    engine = engine_for(match)
    if seat.index not in engine.to_move(match.state):
        raise NotAllowed(_("It is not your turn."))
    if not _accepts_version(match, engine, version):
        raise Conflict(
            _("The table has changed since version %(sent)s (it is now %(now)s): look again.")
            % {"sent": version, "now": match.version}
        )
    try:
        engine.check(match.state, seat.index, move)
    except IllegalMove as error:
        raise BadRequest(explain(error)) from None
    return seat, engine


def _play_checked(match: Match, engine: Engine, seat: int, move: Any) -> None:
    """A checked move applied, then the chance and bot moves it brings."""
    _apply(match, engine, seat, move, by_bot=False)
    match.had_first_move = True
    _run_automatic_moves(match, engine, {s.index: s for s in match.seats.all()})


class _SettleLocked(Exception):
    """A move on this process's last save of its table that the locked read must settle."""


def _play_on_kept(match_id: int, user: AbstractBaseUser, move: Any, version: Any) -> Match | None:
    """``play`` on the match as this process last saved it (``rows.kept_match``): no locked
    read, and the move's writes in one statement that takes effect only if the match, its seats
    and their players are still exactly what was saved (``rows.save_if_unchanged``). None,
    with nothing written, wherever that save may not be the table as it is, or the move would
    write more than the match and its moves: a refused move (what this process saw may be
    old: the locked read says why, or plays it), a seat whose timeouts go back to zero, the end
    of the match, a table changed elsewhere meanwhile."""
    kept = rows.kept_match(match_id)
    if kept is None:
        return None
    match, made_of = kept
    try:
        if not may_watch(match, user):
            return None
        seat, engine = _checked_move(match, user, move, version)
    except ServiceError:
        return None
    if seat.timeouts_in_row:
        return None
    _play_checked(match, engine, seat.index, move)
    try:
        _changed(match, last=True, kept=made_of)
    except _SettleLocked:
        return None
    rows.keep_for_next_move(match)
    return match


def _accepts_version(match: Match, engine: Engine, version: Any) -> bool:
    """A move names the version it was made on, and it must be the table's own. Except in a step
    where several seats move at once and in secret (spec/api.md): there any version since the
    step opened will do, so another seat's pick never makes a move stale."""
    if not isinstance(version, int) or isinstance(version, bool):
        return False
    if version == match.version:
        return True
    step = engine.simultaneous_step(match.state)
    return (
        step is not None
        and step == match.step
        and match.step_version is not None
        and match.step_version <= version <= match.version
    )


def resign(user: AbstractBaseUser, match_id: int) -> Match:
    """Give up a running match (spec/api.md): the seat counts as abandoned, so it ranks behind
    every player who stayed, and the bot plays on for it. With nobody left to play in person,
    the bots play the match to its end at once."""
    with transaction.atomic():
        match = _locked_for(match_id, user)
        seat = own_seat(match, user)
        if not match.is_playing:
            raise Conflict(_("This match is not being played."))
        if seat.abandoned:
            raise Conflict(_("You have already given up this match."))
        seat.abandoned = True
        seat.save(update_fields=["abandoned"])
        _run_automatic_moves(match, engine_for(match), {s.index: s for s in match.seats.all()})
        _changed(match)
    return match


def rematch_of(match: Match) -> Match | None:
    """The table that plays ``match`` again, if a player asked for one."""
    return Match.objects.filter(rematch_of=match).first()


def rematch(user: AbstractBaseUser, match_id: int) -> tuple[Match, bool]:
    """ "Play again": a player of a match that is over opens a new table with the same game, mode,
    seats, options, privacy and timer, and takes a seat at it; the friendly table's bots sit down
    again at once and the other players are invited (told at once, on whatever page they are):
    nobody is seated at a match they did not ask for. A match has one rematch: a player who asks
    once it exists takes a seat there. The table and True when this call opened it."""
    with transaction.atomic():
        match = _locked_for(match_id, user)
        if seat_of(match, user) is None:
            raise NotAllowed(_("Only a player of this match can ask to play again."))
        if not match.is_over or match.state is None:
            raise Conflict(_("You can play again once the match is over."))
        existing = rematch_of(match)
        if existing is not None:
            return _join_rematch(user, existing), False
        try:
            with transaction.atomic():
                again = Match.objects.create(
                    game=match.game,
                    mode=match.mode,
                    seats_count=match.seats_count,
                    options=match.options,
                    private=match.private,
                    turn_seconds=match.turn_seconds,
                    created_by=user,
                    rematch_of=match,
                )
        except IntegrityError:
            # Another player opened it in the same instant (a database without row locks).
            raise Conflict(
                _("Another player has just opened the rematch: ask again to join it.")
            ) from None
        Seat.objects.create(match=again, index=0, user=user)
        others = [s for s in match.seats.all() if s.user_id != user.pk]
        bots = [s.bot_level for s in others if s.is_bot]
        if again.mode == Match.Mode.FRIENDLY:
            Seat.objects.bulk_create(
                Seat(match=again, index=index, user=None, bot_level=level)
                for index, level in enumerate(bots, start=1)
            )
        for seat in others:
            if not seat.is_bot:
                _invite(again, user, seat.user_id)
        _start_if_full(again)
        _changed(again, lobby=True)
        # The finished table changes too: its players see the rematch they may join.
        _changed(match)
    return again, True


def _join_rematch(user: AbstractBaseUser, again: Match) -> Match:
    if seat_of(again, user) is not None:
        return again
    if not again.is_open:
        raise Conflict(_("The rematch has already started without you."))
    return join_table(user, again.pk, invite_code=again.invite_code)


def _invite(match: Match, by: AbstractBaseUser, to_user_id: int) -> None:
    invitation, _created = Invitation.objects.get_or_create(
        match=match, to_user_id=to_user_id, defaults={"from_user": by}
    )
    invitation_id = invitation.pk
    transaction.on_commit(
        lambda: notify.send(
            notify.user_group(to_user_id), {"type": "user.invited", "invitation": invitation_id}
        )
    )


def _apply(match: Match, engine: Engine, seat: int, move: Any, by_bot: bool) -> None:
    """Apply a move to the state and log it. The Move rows of one change (the player's move,
    then the chance and bot moves it brings) are written together, in one insert, when the
    change is saved (``_save_moves``)."""
    number = len(match.state["log"])
    said = engine.describe_move(match.state, seat, move)
    match.state = engine.apply(match.state, seat, move)
    _unsaved_moves(match).append(
        Move(
            match=match,
            number=number,
            seat=seat,
            payload=move,
            description=said.as_json() if said else None,
            by_bot=by_bot,
        )
    )


def _unsaved_moves(match: Match) -> list[Move]:
    return vars(match).setdefault("_unsaved_moves", [])


#: Moves as a read of them gives them back: (number, seat, description, by_bot) each.
MovesAsRead = list[tuple[int, int, Any, bool]]


def _save_moves(match: Match, as_read: MovesAsRead | None = None) -> None:
    """Write the moves applied since the match was last saved, and keep them on ``match`` as a
    read of them would give them (``saved_move_rows``; ``as_read`` when already made)."""
    moves = _unsaved_moves(match)
    if moves:
        rows.insert_moves(moves)
        _note_saved_moves(match, as_read)


def _note_saved_moves(match: Match, as_read: MovesAsRead | None = None) -> None:
    """The moves just written kept on ``match`` as a read of them would give them (``as_read``,
    when the caller made them already)."""
    moves = _unsaved_moves(match)
    if as_read is None:
        as_read = _rows_as_read(moves)
    vars(match).setdefault("_saved_move_rows", []).extend(as_read)
    moves.clear()


def _as_if_saved(match: Match, as_read: MovesAsRead, work: Callable[[], Any]) -> None:
    """``work`` (the render ahead of the commit) with the moves ``as_read`` kept on ``match`` as
    once saved (``_note_saved_moves``), and only while it runs: the commit is not known yet."""
    noted = vars(match).setdefault("_saved_move_rows", [])
    before = len(noted)
    noted.extend(as_read)
    try:
        work()
    finally:
        del noted[before:]


def _rows_as_read(moves: list[Move]) -> MovesAsRead:
    return [(move.number, move.seat, _as_read(move.description), move.by_bot) for move in moves]


def _as_read(description: Any) -> Any:
    """A move's description as reading its JSON column gives it back (tuples become lists)."""
    return None if description is None else json.loads(json.dumps(description))


def saved_move_rows(match: Match) -> list[tuple[int, int, Any, bool]]:
    """(number, seat, description, by_bot) of the moves this ``match`` object wrote (since it
    was read, locked): the process that made a change renders it without reading them back.
    Nothing else may insert a move of a locked match, so they follow its earlier moves."""
    return vars(match).get("_saved_move_rows", [])


def _rng(match: Match, purpose: str) -> random.Random:
    """A generator for the next chance or bot move, derived from the secret seed and the move's
    position, so that a crash and a retry draw the same outcome."""
    return _seeded(match, f"{purpose}:{len(match.state['log'])}")


def _seeded(match: Match, purpose: str) -> random.Random:
    material = f"{match.seed}:{purpose}".encode()
    return random.Random(int.from_bytes(hashlib.sha256(material).digest()[:16], "big"))


def _worker_bot_due(match: Match, engine: Engine, seats: dict[int, Seat]) -> bool:
    return any(
        index != CHANCE and _thinks_in_worker(seats[index]) for index in engine.to_move(match.state)
    )


def _thinks_in_worker(seat: Seat) -> bool:
    """A bot that thinks for a time budget: its turns are the worker's job."""
    return seat.is_bot and (seat.bot_level or 1) >= WORKER_BOT_LEVEL


def _run_automatic_moves(
    match: Match, engine: Engine, seats: dict[int, Seat], worker_turns: int = 0
) -> None:
    """Chance moves, bots and abandoned players' seats, until a person must move, a bot that
    thinks in the worker is due (after ``worker_turns`` of its moves: the worker's own job) or
    the game ends."""
    while not engine.is_over(match.state):
        movers = engine.to_move(match.state)
        if CHANCE in movers:
            outcome = engine.sample_chance(match.state, _rng(match, "chance"))
            _apply(match, engine, CHANCE, outcome, by_bot=False)
            continue
        automatic = [s for s in movers if seats[s].plays_automatically]
        if not automatic:
            return
        seat = seats[automatic[0]]
        if _thinks_in_worker(seat):
            if worker_turns <= 0:
                return  # ``_changed`` makes the match due for the worker at once
            worker_turns -= 1
        view = engine.view(match.state, seat.index)
        move = engine.bot_move(view, _rng(match, "bot"), seat.bot_level or 1)
        _apply(match, engine, seat.index, move, by_bot=True)


def play_for_timeouts(match_id: int) -> bool:
    """The worker's job when a turn's time is up: the bot plays for every seat still to move. A
    ranked match whose first move never came is aborted instead. False if there was nothing to do
    (another worker got there first, or a player moved in time)."""
    with transaction.atomic():
        try:
            match = (
                Match.objects.select_for_update(skip_locked=True)
                .filter(pk=match_id, status=Match.Status.PLAYING, deadline__lte=timezone.now())
                .get()
            )
        except Match.DoesNotExist:
            return False
        if match.mode == Match.Mode.RANKED and not match.had_first_move:
            end_match(match, Match.Status.ABORTED, Match.EndReason.NEVER_STARTED)
            return True
        engine = engine_for(match)
        seats = {s.index: s for s in match.seats.all()}
        if _worker_bot_due(match, engine, seats):
            if not thinking_in_job():
                # The pool's turn (``claim_thinking_turn``), or another worker's: not a timeout.
                return False
            # Not a timeout: a thinking bot's turn. It plays one move (the lock is held for at
            # most its budget); the next is the next job's, so other tables get their turn.
            _run_automatic_moves(match, engine, seats, worker_turns=1)
            match.job_failures = 0
            _changed(match)
            return True
        for index in engine.to_move(match.state):
            seat = seats[index]
            seat.timeouts_in_row += 1
            if seat.timeouts_in_row >= TIMEOUTS_TO_ABANDON:
                seat.abandoned = True
            seat.save(update_fields=["timeouts_in_row", "abandoned"])
            if engine.is_over(match.state) or index not in engine.to_move(match.state):
                continue
            level = seat.bot_level or 1
            move = engine.bot_move(engine.view(match.state, index), _rng(match, "timeout"), level)
            _apply(match, engine, index, move, by_bot=True)
        _run_automatic_moves(match, engine, seats)
        match.job_failures = 0
        _changed(match)
    return True


# --- thinking bots in a bounded pool (issue 13) -----------------------------------------------
#: How long a thinking bot's turn stays handed to the pool (``claim_thinking_turn``): a worker
#: that dies while its pool thinks gives the turn back by itself after this long.
THINKING_CLAIM_SECONDS = 60


def thinking_in_job() -> bool:
    """Whether this worker thinks for the thinking bots in its own job, one move per job: it
    thinks (``WORKER_THINKS``) and has no pool of processes for it (``BOT_POOL_SIZE`` 0)."""
    return settings.WORKER_THINKS and settings.BOT_POOL_SIZE <= 0


@dataclass(frozen=True)
class ThinkingTurn:
    """What a thinking bot needs to choose its move away from the database: its seat's view
    (never the state), its level, and the generator the move would have been drawn with here."""

    match_id: int
    version: int
    seat: int
    game: str
    level: int
    view: dict[str, Any]
    rng: random.Random


def claim_thinking_turn(match_id: int) -> ThinkingTurn | None:
    """Hand a thinking bot's due turn to the caller, to think about out of any transaction: the
    match's deadline moves ``THINKING_CLAIM_SECONDS`` on, so no other job (or worker) takes it
    meanwhile. None when the match is not at a thinking bot's due turn (or is locked)."""
    with transaction.atomic():
        match = due_matches().select_for_update(skip_locked=True).filter(pk=match_id).first()
        if match is None:
            return None
        engine = engine_for(match)
        seats = {s.index: s for s in match.seats.all()}
        thinking = [
            index
            for index in engine.to_move(match.state)
            if index != CHANCE and _thinks_in_worker(seats[index])
        ]
        if not thinking:
            return None
        match.deadline = timezone.now() + timedelta(seconds=THINKING_CLAIM_SECONDS)
        match.save(update_fields=["deadline"])
        seat = seats[thinking[0]]
        return ThinkingTurn(
            match_id=match.pk,
            version=match.version,
            seat=seat.index,
            game=match.game,
            level=seat.bot_level or 1,
            view=engine.view(match.state, seat.index),
            rng=_rng(match, "bot"),
        )


def play_thought_move(turn: ThinkingTurn, move: Any) -> bool:
    """Play the move a thinking bot chose for ``turn`` if the table is still where the bot saw
    it (same version); False otherwise, and the move is dropped (whatever changed the table made
    it due again if the bot is still to move). A move the engine refuses changes nothing."""
    with transaction.atomic():
        match = (
            Match.objects.select_for_update()
            .filter(pk=turn.match_id, status=Match.Status.PLAYING)
            .first()
        )
        if match is None or match.version != turn.version:
            return False
        engine = engine_for(match)
        seats = {s.index: s for s in match.seats.all()}
        seat = seats.get(turn.seat)
        if seat is None or not _thinks_in_worker(seat):
            return False
        if turn.seat not in engine.to_move(match.state):
            return False
        _apply(match, engine, turn.seat, move, by_bot=True)
        _run_automatic_moves(match, engine, seats)
        match.job_failures = 0
        # The claim's deadline is spent: the next one is the turn timer's, or none.
        match.deadline = timezone.now()
        _changed(match)
    return True


def give_back_thinking_turn(turn: ThinkingTurn) -> None:
    """A thought that never came (the pool's process died): the turn is due again at once."""
    Match.objects.filter(
        pk=turn.match_id, version=turn.version, status=Match.Status.PLAYING
    ).update(deadline=timezone.now())


def due_matches() -> QuerySet[Match]:
    """Running matches whose deadline has come: a turn timed out, or a job (a thinking bot's
    move, a match that never began) waits for the worker."""
    return Match.objects.filter(status=Match.Status.PLAYING, deadline__lte=timezone.now())


def note_job_failure(match_id: int) -> bool:
    """The worker could not do a table's due job (its transaction rolled back): count the failure
    and try again later, waiting twice as long after each failure; after ``JOB_TRIES`` failures
    in a row the match is called off, with the reason its players read. True if it was."""
    with transaction.atomic():
        match = (
            Match.objects.select_for_update(skip_locked=True)
            .filter(pk=match_id, status=Match.Status.PLAYING)
            .first()
        )
        if match is None:
            return False
        match.job_failures += 1
        if match.job_failures >= JOB_TRIES:
            end_match(match, Match.Status.ABORTED, Match.EndReason.FAILED)
            return True
        pause = JOB_RETRY_SECONDS * 2 ** (match.job_failures - 1)
        match.deadline = timezone.now() + timedelta(seconds=pause)
        match.save(update_fields=["job_failures", "deadline"])
        return False


# --- the end -------------------------------------------------------------------------------------
def end_match(match: Match, status: str, reason: str) -> None:
    """The one place a match ends, however it ends: played out (the engine's scores and ranks on
    the seats, abandoners behind everyone who stayed) or called off (aborted: no ranks). It is a
    change of the table like any other (a new version); it saves the match, then sends
    ``match_ended`` in the same transaction, and rings the doorbell after the commit."""
    if status == Match.Status.FINISHED:
        _record_result(match, engine_for(match))
    match.version += 1
    match.status = status
    match.end_reason = reason
    match.finished_at = timezone.now()
    match.deadline = None
    match.step, match.step_version = "", None
    _save_moves(match)
    rows.save_match(match)
    match_ended.send(sender=Match, match=match)
    notify.after_commit(match, lobby=True)


def _record_result(match: Match, engine: Engine) -> None:
    result = engine.result(match.state)
    seats = list(match.seats.all())
    ranks = ranks_with_abandoners_last(result.ranks, [s.abandoned for s in seats])
    for seat in seats:
        seat.score = result.scores[seat.index]
        seat.rank = ranks[seat.index]
    rows.save_rows(seats, ["score", "rank"])


def ranks_with_abandoners_last(ranks: list[int], abandoned: list[bool]) -> list[int]:
    """Players who stayed keep their order; those who abandoned rank behind all of them (sharing
    ranks among themselves by their game ranks)."""
    stayed = [i for i, gone in enumerate(abandoned) if not gone]
    left = [i for i, gone in enumerate(abandoned) if gone]
    out = [0] * len(ranks)
    for group, offset in ((stayed, 0), (left, len(stayed))):
        group_ranks = competition_ranks([-ranks[i] for i in group])
        for i, rank in zip(group, group_ranks, strict=True):
            out[i] = offset + rank
    return out


def _changed(
    match: Match, lobby: bool = False, last: bool = False, kept: rows.Kept | None = None
) -> None:
    """Every change of a table: a game that is over ends (``end_match``); otherwise bump the
    version, note a simultaneous step that opens, set the next deadline, save, and ring the
    doorbell after the commit. ``last``: nothing follows in the caller's transaction, so the
    writes and the commit may go in one round trip (``rows.save_and_commit``). ``kept``: the
    match is this process's last save of it, outside any transaction, saved only if the table
    is still that save (``rows.save_if_unchanged``), else ``_SettleLocked`` is raised with
    nothing written or rung."""
    if match.is_playing:
        engine = engine_for(match)
        if engine.is_over(match.state):
            if kept is not None:
                raise _SettleLocked  # the end writes the seats and the ratings
            end_match(match, Match.Status.FINISHED, Match.EndReason.PLAYED_OUT)
            return
    match.version += 1
    if match.is_playing:
        _note_step(match, engine)
        if match.turn_seconds:
            match.deadline = timezone.now() + timedelta(seconds=match.turn_seconds)
        elif match.deadline is not None and match.deadline <= timezone.now():
            match.deadline = None  # a thinking bot's turn, now played: no timer runs here
        if _worker_bot_due(match, engine, {seat.index: seat for seat in match.seats.all()}):
            match.deadline = timezone.now()
    ahead = notify.RenderAhead(match)
    moves = _unsaved_moves(match)
    # Made once, for the render ahead of the commit and for the match once saved.
    as_read = _rows_as_read(moves)

    def render_ahead() -> None:
        _as_if_saved(match, as_read, ahead)

    if kept is not None:
        if not rows.save_if_unchanged(match, moves, kept, while_committing=render_ahead):
            raise _SettleLocked
        _note_saved_moves(match, as_read)
    elif last and rows.save_and_commit(match, moves, while_committing=render_ahead):
        _note_saved_moves(match, as_read)
    else:
        _save_moves(match, as_read)
        rows.save_match(match)
    notify.after_commit(match, lobby=lobby, ahead=ahead)


def _note_step(match: Match, engine: Engine) -> None:
    """Remember the simultaneous step now open and the version at which it opened."""
    step = engine.simultaneous_step(match.state) or ""
    if step != match.step:
        match.step = step
        match.step_version = match.version if step else None
