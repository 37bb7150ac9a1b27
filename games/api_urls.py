from django.urls import path

from . import api

urlpatterns = [
    path("games", api.games, name="api-games"),
    path("tables", api.tables, name="api-tables"),
    path("tables/<int:match_id>", api.table, name="api-table"),
    path("tables/<int:match_id>/join", api.join, name="api-join"),
    path("tables/<int:match_id>/leave", api.leave, name="api-leave"),
    path("tables/<int:match_id>/bots", api.bots, name="api-bots"),
    path("tables/<int:match_id>/resign", api.resign, name="api-resign"),
    path("tables/<int:match_id>/rematch", api.rematch, name="api-rematch"),
    path("tables/<int:match_id>/chat", api.chat_lines, name="api-chat"),
    path("tables/<int:match_id>/chat/mute", api.chat_mute, name="api-chat-mute"),
    path("tables/<int:match_id>/moves", api.moves, name="api-moves"),
    path("tables/<int:match_id>/record", api.record, name="api-record"),
    path("players/<str:username>", api.player, name="api-player"),
]
