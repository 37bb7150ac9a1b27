from typing import Any

from django import forms
from django.contrib.auth.forms import AuthenticationForm, UserCreationForm
from django.core.exceptions import ValidationError
from django.utils.translation import gettext_lazy as _

from games.ratelimit import client_address

from . import throttle


class SignUpForm(UserCreationForm):
    class Meta(UserCreationForm.Meta):
        fields = ("username",)


class NewTokenForm(forms.Form):
    name = forms.CharField(
        label=_("Token name"),
        max_length=60,
        help_text=_("What the token is for, such as 'my bot'."),
    )


class ThrottledAuthenticationForm(AuthenticationForm):
    """Django's login form, refusing attempts while the account and address (or the address
    alone) have had too many wrong passwords (``players.throttle``)."""

    throttled = False

    def clean(self) -> dict[str, Any]:
        username = self.cleaned_data.get("username")
        if username is None or self.cleaned_data.get("password") is None:
            return super().clean()  # a field is missing: its own error says so
        try:
            attempt = throttle.begin(username, client_address(self.request))
        except throttle.LoginThrottled as refused:
            self.throttled = True
            raise ValidationError(refused.message, code="throttled") from None
        data = super().clean()  # a wrong password raises here, and the attempt stays counted
        throttle.succeeded(attempt)
        return data
