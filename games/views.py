"""HTML views of the games app: thin, they read, call services and render.

Forms work without JavaScript (a POST, then a redirect or the page again with the error); with htmx
the same forms post in the background and the answer is hx-swap-oob fragments. An htmx request that
a service refuses is answered 200 with the error fragment only (htmx 2 does not swap 4xx answers),
so the sentence shows and nothing else changes.
"""

from __future__ import annotations

from urllib.parse import urlencode

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_POST

from pdc_site.redirects import go

from . import chat, ratelimit, rendering, services
from .engines import all_engines
from .engines.records import export_record
from .forms import CreateTableForm, version_from_post
from .models import Match
from .presenters import MoveFormError, get_presenter
from .seat_facts import seat_facts
from .table_extras import result_with_facts


def home(request: HttpRequest) -> HttpResponse:
    games = [
        {"slug": e.slug, "name": e.name, "min": e.min_players, "max": e.max_players}
        for e in all_engines()
    ]
    return render(request, "games/home.html", {"games": games})


# --- helpers -----------------------------------------------------------------------------------
def _invite(request: HttpRequest) -> str | None:
    return request.POST.get("invite") or request.GET.get("invite") or None


def _watchable(request: HttpRequest, match_id: int) -> Match:
    """The match if this visitor may see it; a private table answers exactly like a missing one."""
    match = Match.objects.filter(pk=match_id).select_related("created_by").first()
    if match is None or not services.may_watch(match, request.user, _invite(request)):
        raise Http404("There is no such table.")
    return match


def _table_url(match: Match, invite: str | None) -> str:
    url = reverse("games:table", args=[match.pk])
    if invite and invite == match.invite_code:
        url = f"{url}?invite={invite}"
    return url


# --- the lobby ---------------------------------------------------------------------------------
def lobby(request: HttpRequest) -> HttpResponse:
    return _lobby_page(request, CreateTableForm())


def _lobby_page(request: HttpRequest, form: CreateTableForm, status: int = 200) -> HttpResponse:
    context = {**rendering.lobby_context(request.user), "form": form}
    return render(request, "games/lobby.html", context, status=status)


@login_required
@require_POST
def create_table(request: HttpRequest) -> HttpResponse:
    form = CreateTableForm(request.POST)
    if not form.is_valid():
        return _lobby_page(request, form, status=400)
    data = form.cleaned_data
    try:
        match = services.create_table(
            request.user,
            data["game"],
            mode=data["mode"],
            seats=data["seats"],
            options=form.options(),
            private=data["private"],
            turn_seconds=data["turn_seconds"],
        )
    except services.ServiceError as error:
        form.add_error(None, error.message)
        return _lobby_page(request, form, status=error.status)
    return redirect(_table_url(match, match.invite_code if match.private else None))


def api_help(request: HttpRequest) -> HttpResponse:
    return render(request, "games/api_help.html")


# --- a table -----------------------------------------------------------------------------------
@require_GET
def table(request: HttpRequest, match_id: int) -> HttpResponse:
    match = _watchable(request, match_id)
    return _table_page(request, match)


def _table_page(
    request: HttpRequest, match: Match, error: str | None = None, status: int = 200
) -> HttpResponse:
    context = rendering.table_context(match, request.user, _invite(request), error=error)
    context.update(chat.chat_context(match, request.user, _invite(request)))
    # The server's time as the page leaves it: the page counts clocks down to the deadlines the
    # server gives, set against its own clock by this difference (a computer's clock may be off).
    context["server_now_ms"] = int(timezone.now().timestamp() * 1000)
    return render(request, "games/table.html", context, status=status)


@require_POST
def move(request: HttpRequest, match_id: int) -> HttpResponse:
    match = _watchable(request, match_id)
    if request.user.is_authenticated and not ratelimit.allow_move(request.user.pk):
        return _refused(request, match, _("Too many moves: slow down."), 429)
    try:
        played = get_presenter(match.game).move_from_post(request.POST)
        version = version_from_post(request.POST)
        match = services.play(match.pk, request.user, played, version)
    except (MoveFormError, services.ServiceError) as error:
        return _refused(request, match, error.message, error.status)
    return _table_as_it_is(request, match)


def _table_as_it_is(request: HttpRequest, match: Match) -> HttpResponse:
    """After a change: the table's live parts for htmx, else the table page."""
    if request.htmx:
        return HttpResponse(rendering.table_fragments(match, request.user, _invite(request)))
    return redirect(_table_url(match, _invite(request)))


def _refused(request: HttpRequest, match: Match, message: str, status: int) -> HttpResponse:
    """A refused move or seat change: nothing changed, the player reads why."""
    if request.htmx:
        if status == services.Conflict.status:
            # The table moved on: show it as it is now, with the sentence.
            match.refresh_from_db()
            html = rendering.table_fragments(match, request.user, _invite(request), error=message)
            return HttpResponse(html)
        return HttpResponse(rendering.page_error(message))
    match.refresh_from_db()
    return _table_page(request, match, error=message, status=status)


@require_POST
def join(request: HttpRequest, match_id: int) -> HttpResponse:
    if not request.user.is_authenticated:
        return _to_login(request, reverse("games:table", args=[match_id]))
    match = _watchable(request, match_id)
    try:
        services.join_table(request.user, match.pk, _invite(request))
    except services.ServiceError as error:
        return _seat_refused(request, match, error)
    url = _table_url(match, _invite(request))
    return go(request, url)


@require_POST
def leave(request: HttpRequest, match_id: int) -> HttpResponse:
    if not request.user.is_authenticated:
        return _to_login(request, reverse("games:table", args=[match_id]))
    match = _watchable(request, match_id)
    try:
        services.leave_table(request.user, match.pk)
    except services.ServiceError as error:
        return _seat_refused(request, match, error)
    url = reverse("games:lobby")
    return go(request, url)


@require_POST
def add_bot(request: HttpRequest, match_id: int) -> HttpResponse:
    if not request.user.is_authenticated:
        return _to_login(request, reverse("games:table", args=[match_id]))
    match = _watchable(request, match_id)
    try:
        level = int(request.POST.get("level", "1"))
    except ValueError:
        level = 0  # the service refuses it with a sentence
    try:
        match = services.add_bot(request.user, match.pk, level)
    except services.ServiceError as error:
        return _seat_refused(request, match, error)
    return _table_as_it_is(request, match)


@require_POST
def resign(request: HttpRequest, match_id: int) -> HttpResponse:
    """Give up the match (the page asks to confirm first): the seat ranks last, the bot plays on."""
    if not request.user.is_authenticated:
        return _to_login(request, reverse("games:table", args=[match_id]))
    match = _watchable(request, match_id)
    try:
        match = services.resign(request.user, match.pk)
    except services.ServiceError as error:
        return _seat_refused(request, match, error)
    return _table_as_it_is(request, match)


@require_POST
def rematch(request: HttpRequest, match_id: int) -> HttpResponse:
    """ "Play again": to the new table (or the rematch another player opened first)."""
    if not request.user.is_authenticated:
        return _to_login(request, reverse("games:table", args=[match_id]))
    match = _watchable(request, match_id)
    try:
        again, _created = services.rematch(request.user, match.pk)
    except services.ServiceError as error:
        return _seat_refused(request, match, error)
    url = _table_url(again, again.invite_code if again.private else None)
    return go(request, url)


def _seat_refused(request: HttpRequest, match: Match, error: services.ServiceError) -> HttpResponse:
    if request.htmx:
        return HttpResponse(rendering.page_error(error.message))
    messages.error(request, error.message)
    return redirect(_table_url(match, _invite(request)))


def _to_login(request: HttpRequest, next_url: str) -> HttpResponse:
    url = f"{reverse('players:login')}?{urlencode({'next': next_url})}"
    return go(request, url)


@require_GET
def record(request: HttpRequest, match_id: int) -> HttpResponse:
    """The game record as this visitor may see it: while the match runs, pizzas still to come are
    null (engine.record_header decides)."""
    match = _watchable(request, match_id)
    if match.state is None:
        raise Http404("The match has not started yet.")
    engine = services.engine_for(match)
    seat = services.seat_of(match, request.user)
    players = [s.display_name for s in match.seats.select_related("user")]
    data = export_record(engine, match.state, players, viewer=seat.index if seat else None)
    response = JsonResponse(data, json_dumps_params={"indent": 1, "ensure_ascii": False})
    response["Content-Disposition"] = f'attachment; filename="{match.game}-{match.pk}.json"'
    return response


@require_GET
def replay(request: HttpRequest, match_id: int) -> HttpResponse:
    """Steps through a finished match's move log (a running match's replay would have to hide
    what is still secret: it opens only at the end)."""
    match = _watchable(request, match_id)
    if match.status != Match.Status.FINISHED:
        raise Http404("The replay opens when the match is over.")
    try:
        step = int(request.GET.get("step", "0"))
    except ValueError:
        step = 0
    context = rendering.replay_context(match, step)
    if context["result"]:
        seats = {s.index: s for s in match.seats.all()}
        context["result"] = result_with_facts(context["result"], seat_facts(match, seats))
    context.update(chat.chat_context(match, request.user, _invite(request)))
    template = "games/replay.html#replay" if request.htmx else "games/replay.html"
    return render(request, template, context)


# --- the chat ------------------------------------------------------------------------------------
#: What a chat form may send; anything else (a seat, a name) is refused: the server sets them.
CHAT_FIELDS = frozenset({"csrfmiddlewaretoken", "invite", "text"})
MUTE_FIELDS = frozenset({"csrfmiddlewaretoken", "invite", "player", "muted"})


@require_POST
def chat_post(request: HttpRequest, match_id: int) -> HttpResponse:
    """A line for the table's chat; the socket brings it to every viewer (the writer included)."""
    try:
        _only_fields(request, CHAT_FIELDS)
        chat.post(request.user, match_id, request.POST.get("text"), _invite(request))
    except services.ServiceError as error:
        return _chat_refused(request, match_id, error)
    if request.htmx:
        html = chat.render_chat_lines(match_id, request.user, _invite(request)) or ""
        response = HttpResponse(html + chat.render_chat_error(""))
        response["HX-Trigger"] = "chat-sent"
        return response
    return redirect(f"{_chat_table_url(match_id, request)}#table-chat")


@require_POST
def chat_mute(request: HttpRequest, match_id: int) -> HttpResponse:
    """Mute (``muted=1``) or unmute (``muted=0``) the person called ``player``, for this viewer."""
    try:
        _only_fields(request, MUTE_FIELDS)
        muted = {"1": True, "0": False}.get(request.POST.get("muted", ""))
        chat.set_muted(request.user, match_id, request.POST.get("player"), muted, _invite(request))
    except services.ServiceError as error:
        return _chat_refused(request, match_id, error)
    if request.htmx:
        return HttpResponse(chat.render_chat_lines(match_id, request.user, _invite(request)) or "")
    return redirect(f"{_chat_table_url(match_id, request)}#table-chat")


def _only_fields(request: HttpRequest, allowed: frozenset[str]) -> None:
    unknown = sorted(set(request.POST) - allowed)
    if unknown:
        raise services.BadRequest(_("Unknown field %(field)r.") % {"field": unknown[0]})


def _chat_table_url(match_id: int, request: HttpRequest) -> str:
    url = reverse("games:table", args=[match_id])
    invite = _invite(request)
    return f"{url}?{urlencode({'invite': invite})}" if invite else url


def _chat_refused(
    request: HttpRequest, match_id: int, error: services.ServiceError
) -> HttpResponse:
    """A refused line changes nothing; the writer reads why (what they typed stays)."""
    if isinstance(error, services.NotFound):
        raise Http404(error.message)
    if request.htmx:
        return HttpResponse(chat.render_chat_error(error.message))
    messages.error(request, error.message)
    return redirect(f"{_chat_table_url(match_id, request)}#table-chat")
