import pytest


@pytest.fixture(autouse=True)
def quick_passwords(settings):
    """The arena's tests make many players; the real hasher is slow on purpose."""
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
