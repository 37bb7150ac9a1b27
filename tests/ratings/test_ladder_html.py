"""The ladder's page puts its content in the site's shell written in Python
(``pdc_site.page_html``): byte for byte what ``ratings/ladder.html`` draws in ``base.html``, in
every language, for visitors and players, on a page, a search, friends only, with messages."""

from __future__ import annotations

import pytest
from django.conf import settings
from django.contrib import messages
from django.contrib.auth.models import AnonymousUser
from django.template.loader import render_to_string
from django.utils import translation
from django.utils.safestring import mark_safe

from games.engines import get_engine
from players import friends
from ratings.views import ladder_context, ladder_page_html

from ..site.factories import make_user
from .test_pages import GAME, logged_in, ranked_match, without_csrf
from .test_profile_html import page_request

LANGUAGES = [code for code, _name in settings.LANGUAGES]
PATHS = (
    f"/rankings/{GAME}/",
    f"/rankings/{GAME}/?page=2&x=<y>",
    f"/rankings/{GAME}/?q=<o%26",
    f"/rankings/{GAME}/?q=nobody",
    f"/rankings/{GAME}/?friends=1",
)


def drawn_both_ways(viewer, path: str, notes: tuple = ()) -> tuple[str, str]:
    """The page of ``path`` through the template and with the shell written in Python, each
    with its own request (drawing reads the messages), CSRF tokens masked alike."""
    engine = get_engine(GAME)
    request = page_request(viewer, path, notes)
    template = render_to_string("ratings/ladder.html", ladder_context(request, engine), request)
    request = page_request(viewer, path, notes)
    python = ladder_page_html(request, ladder_context(request, engine))
    return without_csrf(template), without_csrf(python)


@pytest.mark.django_db
@pytest.mark.parametrize("language", LANGUAGES)
def test_the_ladder_page_in_the_shell_written_in_python_is_what_the_template_draws(language):
    ann, bob, odd = make_user("ann"), make_user("bob"), make_user("<o&d'>")
    stranger = make_user("stranger")
    for seed in range(3):
        ranked_match([ann, bob, odd], seed=seed)
    friends.request_friend(bob, ann)
    friends.accept(ann, bob)
    friends.request_friend(stranger, ann)  # ann's badge counts one request
    notes = ((messages.INFO, "Saved <b>&</b>"), (messages.ERROR, mark_safe("<i>safe</i>")))
    with translation.override(language):
        for viewer in (AnonymousUser(), ann, odd, stranger):
            for path in PATHS:
                for shown in (notes, ()):
                    template, python = drawn_both_ways(viewer, path, shown)
                    assert python == template, (viewer, path)


@pytest.mark.django_db
def test_the_ladder_page_is_the_one_the_template_draws_over_http():
    ann, bob = make_user("ann"), make_user("bob")
    ranked_match([ann, bob], seed=3)
    path = f"/rankings/{GAME}/?friends=1"
    response = logged_in(bob).get(path)
    assert response.status_code == 200 and response["Content-Type"] == "text/html; charset=utf-8"
    request = page_request(bob, path)
    expected = render_to_string(
        "ratings/ladder.html", ladder_context(request, get_engine(GAME)), request
    )
    assert without_csrf(response.content.decode()) == without_csrf(expected)
