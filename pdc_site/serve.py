"""Daphne on the site's event loop: ``python -m pdc_site.serve`` takes daphne's own arguments
(``-b 127.0.0.1 -p 8000 pdc_site.asgi:application``), on the cores ``SERVE_CPUS`` names if any,
with its connection checks in slices (``pdc_site.daphne_checks``)."""

from pdc_site import cpus, event_loop

# Before daphne is imported: every thread started after this keeps to the cores.
cpus.pin_from_environment()
event_loop.install()

from daphne.cli import CommandLineInterface  # noqa: E402

from pdc_site import daphne_checks  # noqa: E402

daphne_checks.install()

if __name__ == "__main__":
    CommandLineInterface.entrypoint()
