"""HTML views of the games app: thin, they read and call services only."""

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render

from .engines import all_engines


def home(request: HttpRequest) -> HttpResponse:
    games = [
        {"slug": e.slug, "name": e.name, "min": e.min_players, "max": e.max_players}
        for e in all_engines()
    ]
    return render(request, "games/home.html", {"games": games})
