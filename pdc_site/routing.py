"""WebSocket routes (the live lobby and tables join them in the site's issue)."""

websocket_urlpatterns: list = []
