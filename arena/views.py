"""HTML views of the arenas: thin, they read through ``arena.rendering`` and act through
``arena.services``.

As in the games app, every form works without JavaScript (a POST, then a redirect); with htmx the
same forms post in the background and the answer is the page's hx-swap-oob fragments. A refused
htmx request is answered 200 with only the error fragment (htmx 2 does not swap 4xx answers).
A private arena the visitor may not see answers exactly like a missing one (404).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any
from urllib.parse import urlencode

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_GET, require_POST

from games.rendering import page_error
from games.services import ServiceError
from pdc_site.redirects import go

from . import rendering, services
from .forms import CreateArenaForm
from .models import Tournament


def _invite(request: HttpRequest) -> str | None:
    return request.POST.get("invite") or request.GET.get("invite") or None


def _visible(request: HttpRequest, tournament_id: int) -> Tournament:
    try:
        return services.get_tournament(tournament_id, request.user, _invite(request))
    except services.NotFound:
        raise Http404("There is no such arena.") from None


def _arena_url(tournament: Tournament, invite: str | None) -> str:
    url = reverse("arena:detail", args=[tournament.pk])
    invite = rendering.valid_invite(tournament, invite)
    return f"{url}?{urlencode({'invite': invite})}" if invite else url


# --- the list ----------------------------------------------------------------------------------
@require_GET
def arena_list(request: HttpRequest) -> HttpResponse:
    return _list_page(request, CreateArenaForm())


def _list_page(request: HttpRequest, form: CreateArenaForm, status: int = 200) -> HttpResponse:
    context = {**rendering.listing_context(request.user), "form": form}
    return render(request, "arena/list.html", context, status=status)


@login_required
@require_POST
def create(request: HttpRequest) -> HttpResponse:
    form = CreateArenaForm(request.POST)
    if not form.is_valid():
        return _list_page(request, form, status=400)
    data = form.cleaned_data
    try:
        tournament = services.create_tournament(
            request.user,
            data["game"],
            name=data["name"].strip() or None,
            starts_at=data["starts_at"],
            minutes=data["minutes"],
            seats=data["seats"],
            turn_seconds=data["turn_seconds"],
            options=form.options(),
            private=data["private"],
        )
    except ServiceError as error:
        form.add_error(None, error.message)
        return _list_page(request, form, status=error.status)
    return redirect(_arena_url(tournament, tournament.invite_code))


# --- an arena ----------------------------------------------------------------------------------
@require_GET
def detail(request: HttpRequest, tournament_id: int) -> HttpResponse:
    tournament = _visible(request, tournament_id)
    context = rendering.arena_context(tournament, request.user, _invite(request))
    return render(request, "arena/arena.html", context)


@require_GET
def current_table(request: HttpRequest, tournament_id: int) -> HttpResponse:
    """Where the arena page's socket sends a player it has just seated: their live table (an
    ``HX-Redirect`` for htmx, a plain redirect otherwise), else back to the arena."""
    tournament = _visible(request, tournament_id)
    match = services.current_table_for(request.user, tournament)
    if match is not None:
        return go(request, reverse("games:table", args=[match.pk]))
    if request.htmx:
        return HttpResponse(status=204)
    return redirect(_arena_url(tournament, _invite(request)))


def _entry_action(
    act: Callable[[Any, Tournament, str | None], Any],
) -> Callable[[HttpRequest, int], HttpResponse]:
    """A POST that changes the user's entry, then shows the arena as it is now."""

    @require_POST
    def view(request: HttpRequest, tournament_id: int) -> HttpResponse:
        invite = _invite(request)
        if not request.user.is_authenticated:
            url = reverse("arena:detail", args=[tournament_id])
            if invite:
                url = f"{url}?{urlencode({'invite': invite})}"
            return go(request, f"{reverse('players:login')}?{urlencode({'next': url})}")
        tournament = _visible(request, tournament_id)
        try:
            act(request.user, tournament, invite)
        except ServiceError as error:
            if request.htmx:
                return HttpResponse(page_error(error.message))
            messages.error(request, error.message)
            return redirect(_arena_url(tournament, invite))
        tournament.refresh_from_db()
        if not services.may_view(tournament, request.user, invite):
            # Withdrawn before the start from a private arena they had no link to.
            return go(request, reverse("arena:list"))
        if request.htmx:
            html = rendering.arena_fragments(tournament, request.user, invite, request=request)
            return HttpResponse(html)
        return redirect(_arena_url(tournament, invite))

    view.__name__ = act.__name__
    return view


def _join(user: Any, tournament: Tournament, invite: str | None) -> Any:
    return services.join(user, tournament.pk, invite_code=invite)


def _pause(user: Any, tournament: Tournament, invite: str | None) -> Any:
    return services.pause(user, tournament.pk)


def _resume(user: Any, tournament: Tournament, invite: str | None) -> Any:
    return services.resume(user, tournament.pk)


def _withdraw(user: Any, tournament: Tournament, invite: str | None) -> Any:
    return services.withdraw(user, tournament.pk)


join = _entry_action(_join)
pause = _entry_action(_pause)
resume = _entry_action(_resume)
withdraw = _entry_action(_withdraw)
