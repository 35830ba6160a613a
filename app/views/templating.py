"""The pages' templates: app.http.templating's environment plus the helpers that read service
figures (a point's own prefill:decode split, tokens per joule), the charts' colours (a series'
swatch) and the sidebar's choice lists read from store rows (app.views.choices). The pages
import `render` from here, so those helpers are in place whenever a page renders, and app.http
knows no service."""

from __future__ import annotations

from app.charts.style import PALETTE
from app.http.templating import render, templates
from app.services.readoff import document as readoff_json
from app.services.readoff import energy
from app.views import choices

__all__ = ["render", "templates"]


def swatch_class(colour: str) -> str:
    """The class that paints a series' swatch in its chart colour (the CSP allows no style=)."""
    try:
        return f"swatch-{PALETTE.index(colour.upper())}"
    except ValueError:
        return ""  # not a series colour: the swatch stays the stylesheet's grey


templates.env.filters["swatch"] = swatch_class
templates.env.globals["preset_groups"] = choices.preset_groups
templates.env.globals["profile_groups"] = choices.profile_groups
templates.env.globals["price_set_groups"] = choices.price_set_groups
templates.env.filters["input_value"] = choices.input_value

templates.env.globals["operating_split"] = readoff_json.operating_split  # the point's own
templates.env.globals["joules"] = energy.of  # tokens per joule, measured and estimated
templates.env.globals["joule_words"] = {
    "measured": energy.MEASURED,
    "estimate": energy.ESTIMATE,
    "invalid": energy.INVALID,
}
