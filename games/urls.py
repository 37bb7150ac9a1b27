from django.urls import path

from . import bot_profiles, howto, views

app_name = "games"

urlpatterns = [
    path("", views.home, name="home"),
    path("play/", views.lobby, name="lobby"),
    path("play/new/", views.create_table, name="create"),
    path("play/api/", views.api_help, name="api_help"),
    path("how-to-play/", howto.howto_index, name="howto_index"),
    path("how-to-play/<slug:slug>/", howto.howto, name="howto"),
    path("bots/<slug:game>/<int:level>/", bot_profiles.bot_profile, name="bot_profile"),
    path("tables/<int:match_id>/", views.table, name="table"),
    path("tables/<int:match_id>/move/", views.move, name="move"),
    path("tables/<int:match_id>/join/", views.join, name="join"),
    path("tables/<int:match_id>/leave/", views.leave, name="leave"),
    path("tables/<int:match_id>/bot/", views.add_bot, name="add_bot"),
    path("tables/<int:match_id>/resign/", views.resign, name="resign"),
    path("tables/<int:match_id>/rematch/", views.rematch, name="rematch"),
    path("tables/<int:match_id>/chat/", views.chat_post, name="chat"),
    path("tables/<int:match_id>/chat/mute/", views.chat_mute, name="chat_mute"),
    path("tables/<int:match_id>/record.json", views.record, name="record"),
    path("tables/<int:match_id>/replay/", views.replay, name="replay"),
]
