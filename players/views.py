"""Accounts: sign up, the account page and its API tokens (log in, out and password change are
Django's own views, wired in players/urls.py)."""

from django.contrib import messages
from django.contrib.auth import get_user_model, login
from django.contrib.auth import views as auth_views
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils import timezone
from django.utils.http import url_has_allowed_host_and_scheme
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from games import services
from games.rendering import page_error

from . import friends, invitations, presence
from .forms import NewTokenForm, SignUpForm, ThrottledAuthenticationForm
from .models import ApiToken, Friendship


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


class LoginView(auth_views.LoginView):
    """Django's login page with throttled attempts: a refused attempt answers 429 with the
    sentence on the form."""

    authentication_form = ThrottledAuthenticationForm
    redirect_authenticated_user = True

    def form_invalid(self, form: ThrottledAuthenticationForm) -> HttpResponse:
        response = super().form_invalid(form)
        if form.throttled:
            response.status_code = 429
        return response


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


# --- friends -------------------------------------------------------------------------------------
@login_required
def friends_page(request: HttpRequest) -> HttpResponse:
    ids = friends.friend_ids(request.user)
    people = list(get_user_model().objects.filter(pk__in=ids).order_by("username"))
    online = presence.online_ids(ids)
    sent = Friendship.objects.filter(from_user=request.user, accepted_at__isnull=True)
    return render(
        request,
        "players/friends.html",
        {
            "friends": [{"user": p, "online": p.pk in online} for p in people],
            "incoming": friends.incoming_requests(request.user),
            "sent": sent.select_related("to_user"),
        },
    )


def _back(request: HttpRequest) -> HttpResponse:
    return redirect(_safe_next(request) or "players:friends")


def _other(username: str):
    return get_object_or_404(get_user_model(), username=username, is_active=True)


@login_required
@require_POST
def friend_request(request: HttpRequest, username: str) -> HttpResponse:
    try:
        status = friends.request_friend(request.user, _other(username))
    except friends.FriendError as refusal:
        messages.error(request, refusal.message)
        return _back(request)
    if status == "friends":
        messages.success(request, _("You and %(name)s are friends.") % {"name": username})
    else:
        messages.info(request, _("Friend request sent to %(name)s.") % {"name": username})
    return _back(request)


@login_required
@require_POST
def friend_request_by_name(request: HttpRequest) -> HttpResponse:
    username = request.POST.get("username", "").strip()
    if not get_user_model().objects.filter(username=username, is_active=True).exists():
        messages.error(request, _("There is no player called %(name)s.") % {"name": username})
        return redirect("players:friends")
    return friend_request(request, username)


@login_required
@require_POST
def friend_accept(request: HttpRequest, username: str) -> HttpResponse:
    try:
        friends.accept(request.user, _other(username))
        messages.success(request, _("You and %(name)s are friends.") % {"name": username})
    except friends.FriendError as refusal:
        messages.error(request, refusal.message)
    return _back(request)


@login_required
@require_POST
def friend_decline(request: HttpRequest, username: str) -> HttpResponse:
    try:
        friends.decline(request.user, _other(username))
    except friends.FriendError as refusal:
        messages.error(request, refusal.message)
    return _back(request)


@login_required
@require_POST
def friend_remove(request: HttpRequest, username: str) -> HttpResponse:
    friends.remove(request.user, _other(username))
    return _back(request)


@login_required
@require_POST
def invite_friend(request: HttpRequest, match_id: int) -> HttpResponse:
    friend = _other(request.POST.get("friend", ""))
    try:
        services.invite_friend(request.user, match_id, friend)
    except services.ServiceError as refusal:
        if request.htmx:
            return HttpResponse(page_error(refusal.message))
        messages.error(request, refusal.message)
        return redirect("games:table", match_id)
    if request.htmx:
        # The table's socket shows the invitation to everyone at the table.
        return HttpResponse(status=204)
    messages.success(request, _("%(name)s is invited.") % {"name": friend.username})
    return redirect("games:table", match_id)


@login_required
@require_POST
def invitation_dismiss(request: HttpRequest, invitation_id: int) -> HttpResponse:
    invitations.dismiss(request.user, invitation_id)
    if request.htmx:
        # The player's socket sends the toasts again, without this one, to each of their pages.
        return HttpResponse(status=204)
    return _back(request)


@login_required
def invitation_open(request: HttpRequest, invitation_id: int) -> HttpResponse:
    """Follow an invitation: it has been used, so it stops showing; on to the table."""
    invitation = invitations.dismiss(request.user, invitation_id)
    return redirect("games:table", invitation.match_id)
