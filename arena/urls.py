from django.urls import path

from . import views

app_name = "arena"

urlpatterns = [
    path("", views.arena_list, name="list"),
    path("new/", views.create, name="create"),
    path("<int:tournament_id>/", views.detail, name="detail"),
    path("<int:tournament_id>/table/", views.current_table, name="table"),
    path("<int:tournament_id>/join/", views.join, name="join"),
    path("<int:tournament_id>/pause/", views.pause, name="pause"),
    path("<int:tournament_id>/resume/", views.resume, name="resume"),
    path("<int:tournament_id>/withdraw/", views.withdraw, name="withdraw"),
]
