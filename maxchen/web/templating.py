"""The templates' environment: Flask's, drawing the same pages with less work per area.

Every area a push sends is drawn anew (maxchen.live), so what Jinja does per
attribute, per import and per render counts.
"""

from flask.templating import Environment as FlaskEnvironment

_DICT_ATTRIBUTES = frozenset(dir(dict))


class Environment(FlaskEnvironment):
    """`view.phase` on a dict is `view["phase"]`, as in Jinja, but looked up first.

    Jinja tries the attribute first and catches the AttributeError for every
    key of every view, a few hundred per area drawn. A dict has no attributes
    but its methods, so reading the key first (but for `items`, `get` and the
    other methods) gives what Jinja gives, without the exception.
    """

    def getattr(self, obj, attribute):
        if type(obj) is dict and attribute not in _DICT_ATTRIBUTES:
            try:
                return obj[attribute]
            except KeyError:
                pass
        return super().getattr(obj, attribute)

    def make_globals(self, d):
        """A template's globals as one dict, not Jinja's ChainMap over the environment's.

        Every `{% from … import %}` compares the importer's globals with the
        imported template's; through a ChainMap that was a quarter of drawing
        a player's controls. The environment's globals are all set when the
        app is made, before any template loads (as Jinja asks).
        """
        return {**self.globals, **(d or {})}
