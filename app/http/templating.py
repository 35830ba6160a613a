"""Jinja2 environment and number formatting: every number is shown with its unit."""

from __future__ import annotations

import math
from typing import Any

import orjson
from fastapi import Request
from fastapi.templating import Jinja2Templates
from markupsafe import Markup
from starlette.responses import Response

from app import __version__
from app.domain.columns import SOURCE_KIND_LABELS
from app.http.static import static_url
from app.settings import PROJECT_ROOT

templates = Jinja2Templates(directory=PROJECT_ROOT / "templates")

NAV = (
    ("explore", "/", "Explore"),
    ("sweeps", "/sweeps", "Sweeps"),
    ("upload", "/upload", "Upload"),
    ("compare", "/compare", "Compare"),
    ("history", "/history", "History"),
    ("claims", "/claims", "Claims"),
    ("plan", "/plan", "Plan"),
    ("pricing", "/pricing", "Pricing"),
    ("catalog", "/catalog", "Catalog"),
    ("metrics", "/metrics", "Metrics"),
)


def fmt_num(value: Any, digits: int | None = None) -> str:
    """Thousands separators and sensible precision; missing values show an en dash."""
    if value is None or value == "":
        return "–"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, int):
        return f"{value:,}"
    if isinstance(value, float):
        if math.isinf(value):
            return "∞"
        if math.isnan(value):
            return "–"
        if digits is None:
            size = abs(value)
            digits = 0 if size >= 1000 else 1 if size >= 100 else 2 if size >= 1 else 4
        return f"{value:,.{digits}f}"
    return str(value)


def fmt_unit(value: Any, unit: str, digits: int | None = None) -> str:
    text = fmt_num(value, digits)
    return text if text == "–" or not unit else f"{text} {unit}"


def fmt_usd(value: Any, digits: int = 4) -> str:
    if value is None:
        return "–"
    return f"${value:,.{digits}f}"


# Inside <script type="application/json"> the HTML parser looks for "</script" and "<!--"; with
# these escaped no uploaded text can end the block or open markup, and JSON.parse reads it back.
# U+2028/2029 are escaped too, so the text stays valid even if someone evaluates it as JS.
# orjson and str.replace run in C: a figure of 40k points is a few MB.
_SCRIPT_ESCAPES = (
    ("<", "\\u003c"),
    (">", "\\u003e"),
    ("&", "\\u0026"),
    ("'", "\\u0027"),
    ("\u2028", "\\u2028"),
    ("\u2029", "\\u2029"),
)


def script_json(value: Any, indent: int | None = None) -> Markup:
    """JSON safe to place in a <script type="application/json"> block or an attribute.

    NaN and ±inf become null (JSON has neither; JSON.parse would refuse the whole block)."""
    option = orjson.OPT_NON_STR_KEYS | (orjson.OPT_INDENT_2 if indent else 0)
    text = orjson.dumps(value, option=option).decode()
    for char, escaped in _SCRIPT_ESCAPES:
        text = text.replace(char, escaped)
    return Markup(text)


def source_label(kind: str | None) -> str:
    """A sweep's source kind as shown: "demo" reads "demo (synthetic)"."""
    return SOURCE_KIND_LABELS.get(kind or "", kind or "–")


templates.env.filters["num"] = fmt_num
templates.env.filters["source_label"] = source_label
templates.env.filters["unit"] = fmt_unit
templates.env.filters["usd"] = fmt_usd
# Replaces Jinja's own tojson (which leaves U+2028/2029 alone): one way to embed data for scripts.
templates.env.filters["tojson"] = script_json
templates.env.globals["nav"] = NAV
templates.env.globals["version"] = __version__
templates.env.globals["static"] = static_url


def render(
    request: Request, name: str, context: dict[str, Any], status_code: int = 200
) -> Response:
    return templates.TemplateResponse(request, name, context, status_code=status_code)
