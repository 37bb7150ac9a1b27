"""Accounts: sign up, log in and out, change password, API tokens and ``issue_token``."""

from __future__ import annotations

from io import StringIO

import pytest
from django.contrib.auth import get_user_model
from django.core.management import CommandError, call_command
from django.test import Client

from players.models import ApiToken, hash_token

from .factories import make_user

pytestmark = pytest.mark.django_db


def test_sign_up_logs_the_new_player_in():
    client = Client()
    response = client.post(
        "/accounts/signup/",
        {"username": "margherita", "password1": "olive-oil-42", "password2": "olive-oil-42"},
    )
    assert response.status_code == 302
    assert get_user_model().objects.filter(username="margherita").exists()
    assert client.get("/accounts/").status_code == 200


def test_sign_up_refuses_mismatched_passwords_with_a_message():
    response = Client().post(
        "/accounts/signup/",
        {"username": "reine", "password1": "olive-oil-42", "password2": "other-oil-42"},
    )
    assert response.status_code == 200
    assert not get_user_model().objects.filter(username="reine").exists()
    assert b"errorlist" in response.content


def test_log_in_and_out():
    make_user("truffe", password="black-diamond-7")
    client = Client()
    response = client.post(
        "/accounts/login/", {"username": "truffe", "password": "black-diamond-7"}
    )
    assert response.status_code == 302
    assert client.get("/accounts/").status_code == 200
    client.post("/accounts/logout/")
    assert client.get("/accounts/").status_code == 302


def test_change_password():
    user = make_user("fromage", password="four-cheeses-1")
    client = Client()
    client.force_login(user)
    response = client.post(
        "/accounts/password/",
        {
            "old_password": "four-cheeses-1",
            "new_password1": "five-cheeses-2",
            "new_password2": "five-cheeses-2",
        },
    )
    assert response.status_code == 302
    user.refresh_from_db()
    assert user.check_password("five-cheeses-2")


def test_the_account_page_creates_a_token_shown_once_and_revokes_it():
    user = make_user()
    client = Client()
    client.force_login(user)
    response = client.post("/accounts/tokens/", {"name": "my bot"}, follow=True)
    raw = response.context["new_token"]
    assert raw.startswith("pdc_")
    assert raw.encode() in response.content
    token = ApiToken.objects.get(user=user)
    assert token.key_hash == hash_token(raw) and raw not in token.hint + token.key_hash
    again = client.get("/accounts/")
    assert raw.encode() not in again.content
    client.post(f"/accounts/tokens/{token.pk}/revoke/")
    assert ApiToken.user_for(raw) is None


def test_a_player_cannot_revoke_someone_elses_token():
    owner, other = make_user(), make_user()
    token, raw = ApiToken.issue(owner, "mine")
    client = Client()
    client.force_login(other)
    assert client.post(f"/accounts/tokens/{token.pk}/revoke/").status_code == 404
    assert ApiToken.user_for(raw) == owner


def test_forms_without_the_csrf_token_are_refused():
    user = make_user()
    client = Client(enforce_csrf_checks=True)
    client.force_login(user)
    assert client.post("/accounts/tokens/", {"name": "forged"}).status_code == 403
    assert not ApiToken.objects.exists()


def test_issue_token_prints_a_working_token():
    user = make_user("botty")
    out = StringIO()
    call_command("issue_token", "botty", stdout=out)
    assert ApiToken.user_for(out.getvalue().strip()) == user


def test_issue_token_create_makes_the_user_first():
    out = StringIO()
    call_command("issue_token", "newbot", "--create", stdout=out)
    user = get_user_model().objects.get(username="newbot")
    assert not user.has_usable_password()
    assert ApiToken.user_for(out.getvalue().strip()) == user


def test_issue_token_for_an_unknown_user_without_create_fails_clearly():
    with pytest.raises(CommandError, match="no player called"):
        call_command("issue_token", "ghost")
    with pytest.raises(CommandError, match="not a valid username"):
        call_command("issue_token", "bad name!", "--create")
