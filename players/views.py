"""Accounts: sign up, the account page and its API tokens (log in, out and password change are
Django's own views, wired in players/urls.py)."""

from django.contrib import messages
from django.contrib.auth import login
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils import timezone
from django.utils.http import url_has_allowed_host_and_scheme
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from .forms import NewTokenForm, SignUpForm
from .models import ApiToken


def signup(request: HttpRequest) -> HttpResponse:
    if request.user.is_authenticated:
        return redirect("games:lobby")
    form = SignUpForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        user = form.save()
        login(request, user, backend="django.contrib.auth.backends.ModelBackend")
        messages.success(request, _("Welcome, %(name)s!") % {"name": user.username})
        return redirect(_safe_next(request) or "games:lobby")
    return render(request, "registration/signup.html", {"form": form})


def _safe_next(request: HttpRequest) -> str | None:
    target = request.POST.get("next") or request.GET.get("next")
    if target and url_has_allowed_host_and_scheme(target, {request.get_host()}):
        return target
    return None


@login_required
def account(request: HttpRequest) -> HttpResponse:
    form = NewTokenForm()
    new_token = request.session.pop("new_token", None)
    tokens = request.user.api_tokens.all()
    return render(
        request,
        "players/account.html",
        {"form": form, "tokens": tokens, "new_token": new_token},
    )


@login_required
@require_POST
def create_token(request: HttpRequest) -> HttpResponse:
    form = NewTokenForm(request.POST)
    if not form.is_valid():
        tokens = request.user.api_tokens.all()
        return render(request, "players/account.html", {"form": form, "tokens": tokens}, status=400)
    _, raw = ApiToken.issue(request.user, form.cleaned_data["name"])
    # Shown once, on the page the redirect leads to, then gone from the session.
    request.session["new_token"] = raw
    return redirect("players:account")


@login_required
@require_POST
def revoke_token(request: HttpRequest, token_id: int) -> HttpResponse:
    token = get_object_or_404(ApiToken, pk=token_id, user=request.user)
    if token.revoked_at is None:
        token.revoked_at = timezone.now()
        token.save(update_fields=["revoked_at"])
        messages.info(request, _("Token “%(name)s” revoked.") % {"name": token.name})
    return redirect("players:account")
