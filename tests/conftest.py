"""Suite-wide set-up."""

import os

# Playwright's sync API runs an event loop in the test thread; Django's ORM must still be usable.
os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")
