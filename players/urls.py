from django.contrib.auth import views as auth_views
from django.urls import path, reverse_lazy

from . import views

app_name = "players"

urlpatterns = [
    path("signup/", views.signup, name="signup"),
    path("login/", views.LoginView.as_view(), name="login"),
    path("logout/", auth_views.LogoutView.as_view(), name="logout"),
    path(
        "password/",
        auth_views.PasswordChangeView.as_view(success_url=reverse_lazy("players:password_done")),
        name="password_change",
    ),
    path(
        "password/done/",
        auth_views.PasswordChangeDoneView.as_view(),
        name="password_done",
    ),
    path("", views.account, name="account"),
    path("tokens/", views.create_token, name="create_token"),
    path("tokens/<int:token_id>/revoke/", views.revoke_token, name="revoke_token"),
    path("friends/", views.friends_page, name="friends"),
    path("friends/add/", views.friend_request_by_name, name="friend_add"),
    path("friends/<str:username>/request/", views.friend_request, name="friend_request"),
    path("friends/<str:username>/accept/", views.friend_accept, name="friend_accept"),
    path("friends/<str:username>/decline/", views.friend_decline, name="friend_decline"),
    path("friends/<str:username>/remove/", views.friend_remove, name="friend_remove"),
    path("invitations/<int:invitation_id>/", views.invitation_open, name="invitation_open"),
    path(
        "invitations/<int:invitation_id>/dismiss/",
        views.invitation_dismiss,
        name="invitation_dismiss",
    ),
    path("tables/<int:match_id>/invite/", views.invite_friend, name="invite_friend"),
]
