"""WebSocket routes."""

from django.urls import path

from arena.consumers import ArenaConsumer
from games import consumers
from players.consumers import PlayerConsumer

websocket_urlpatterns = [
    path("ws/lobby/", consumers.LobbyConsumer.as_asgi()),
    path("ws/tables/<int:match_id>/", consumers.TableConsumer.as_asgi()),
    path("ws/me/", PlayerConsumer.as_asgi()),
    path("ws/arenas/<int:tournament_id>/", ArenaConsumer.as_asgi()),
]
