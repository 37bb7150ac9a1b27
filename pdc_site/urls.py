from django.contrib import admin
from django.urls import include, path

from pdc_site.site_files import favicon, robots
from players.profile import profile
from ratings.api import rankings as api_rankings

urlpatterns = [
    path("favicon.ico", favicon, name="favicon"),
    path("robots.txt", robots, name="robots"),
    path("admin/", admin.site.urls),
    path("i18n/", include("django.conf.urls.i18n")),
    path("accounts/", include("players.urls")),
    path("api/", include("games.api_urls")),
    path("api/", include("arena.api_urls")),
    path("api/rankings/<str:game>", api_rankings, name="api-rankings"),
    path("rankings/", include("ratings.urls")),
    path("players/<str:username>/", profile, name="profile"),
    path("arenas/", include("arena.urls")),
    path("", include("games.urls")),
]
