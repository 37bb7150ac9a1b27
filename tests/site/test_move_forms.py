"""The move forms written in Python (games/templatetags/move_forms.py) carry the same hidden
fields as the template's ``move_hidden`` partial, with a page's CSRF token and without (the
sockets' renders have no request); the render corpus covers the rest of their output."""

import pytest
from django.template import Context
from django.template.loader import get_template

from games.templatetags.move_forms import move_hidden


@pytest.mark.parametrize("csrf", [{}, {"csrf_token": "a<b"}, {"csrf_token": "NOTPROVIDED"}])
@pytest.mark.parametrize("table", [{"version": 3, "invite": None}, {"version": 4, "invite": "x&y"}])
def test_move_hidden_fields_are_the_partials(csrf: dict, table: dict) -> None:
    partial = get_template("games/partials/table.html#move_hidden")
    context = {"table": table, **csrf}
    assert move_hidden(Context(context)) == partial.render(context)
