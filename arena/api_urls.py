from django.urls import path

from . import api

urlpatterns = [
    path("tournaments", api.tournaments, name="api-tournaments"),
    path("tournaments/<int:tournament_id>", api.tournament, name="api-tournament"),
    path("tournaments/<int:tournament_id>/join", api.join, name="api-tournament-join"),
    path("tournaments/<int:tournament_id>/pause", api.pause, name="api-tournament-pause"),
    path("tournaments/<int:tournament_id>/resume", api.resume, name="api-tournament-resume"),
    path("tournaments/<int:tournament_id>/withdraw", api.withdraw, name="api-tournament-withdraw"),
]
