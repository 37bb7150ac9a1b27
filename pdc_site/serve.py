"""Daphne on the site's event loop: ``python -m pdc_site.serve`` takes daphne's own arguments
(``-b 127.0.0.1 -p 8000 pdc_site.asgi:application``)."""

from pdc_site import event_loop

event_loop.install()

from daphne.cli import CommandLineInterface  # noqa: E402

if __name__ == "__main__":
    CommandLineInterface.entrypoint()
