#!/usr/bin/env python
"""Django's command-line utility for the site."""

import os
import sys


def main() -> None:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "pdc_site.settings")
    # Before anything imports daphne.server, which makes the loop runserver serves on.
    from pdc_site import event_loop

    event_loop.install()
    from django.core.management import execute_from_command_line

    execute_from_command_line(sys.argv)


if __name__ == "__main__":
    main()
