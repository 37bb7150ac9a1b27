"""``{% per_language %}…{% endper_language %}``: a block rendered once per language and then
reused, for what reads the same at every table in a language (a legend, a table's headings):
every render of a table's parts ran its translations again (issue 10).

Only for blocks that use nothing but translations and data that are the same in every context
in a language (a game's kinds, sorts): the block's first render in a language is what every
later one gets. ``tests/site/test_render_corpus.py`` renders every table in every language.
"""

from __future__ import annotations

from django import template
from django.template.base import Node, NodeList
from django.template.context import Context
from django.utils.safestring import SafeString, mark_safe
from django.utils.translation import get_language

register = template.Library()


class PerLanguageNode(Node):
    def __init__(self, nodelist: NodeList) -> None:
        self.nodelist = nodelist
        # Kept on the node: a reloaded template starts afresh, and nothing else holds it.
        self.rendered: dict[str | None, SafeString] = {}

    def render(self, context: Context) -> SafeString:
        language = get_language()
        html = self.rendered.get(language)
        if html is None:
            html = self.rendered[language] = mark_safe(self.nodelist.render(context))
        return html


@register.tag
def per_language(parser: template.base.Parser, token: template.base.Token) -> PerLanguageNode:
    nodelist = parser.parse(("endper_language",))
    parser.delete_first_token()
    return PerLanguageNode(nodelist)
