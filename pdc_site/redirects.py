"""Where a form's ``POST`` sends the browser next, for htmx and for a plain form alike."""

from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect


def go(request: HttpRequest, url: str) -> HttpResponse:
    """To ``url``: htmx follows an empty answer's ``HX-Redirect`` (a 302 would be followed by
    the XHR itself and swapped into the page), a form without htmx a plain redirect."""
    if request.htmx:
        response = HttpResponse(status=204)
        response["HX-Redirect"] = url
        return response
    return redirect(url)
