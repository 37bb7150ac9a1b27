"""Links reversed once per links' prefix (``pdc_site.links``) are what ``reverse`` gives."""

from django.urls import reverse, set_script_prefix

from pdc_site.links import around_argument


def test_a_link_around_its_argument_is_what_reverse_gives_under_every_prefix() -> None:
    try:
        for script_prefix in ("/", "/pizza/"):
            set_script_prefix(script_prefix)
            prefix, suffix = around_argument("games:replay", "918273645")
            assert f"{prefix}42{suffix}" == reverse("games:replay", args=[42])
            prefix, suffix = around_argument("profile", "PROFILE-NAME")
            assert f"{prefix}basil{suffix}" == reverse("profile", args=["basil"])
            assert prefix.startswith(script_prefix)
    finally:
        set_script_prefix("/")
