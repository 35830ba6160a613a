"""Jinja2 environment; the number filters delegate to app.domain.numbers (one rule everywhere).
The helpers that read service figures are added to it by app.views.templating."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

import orjson
from fastapi import Request
from fastapi.templating import Jinja2Templates
from jinja2 import FileSystemBytecodeCache
from markupsafe import Markup
from starlette.responses import Response

from app import __version__
from app.domain import numbers
from app.domain.accounting import UNIT_WORDS, split_label
from app.domain.columns import SOURCE_KIND_LABELS
from app.domain.covariates import COVARIATE_LABELS, POINT_COVARIATES, point_covariates
from app.domain.provenance import provenance_text
from app.domain.sweep_fields import REQUIRED_META
from app.http.static import PLOTLY_JS, SCRIPTS, static_url
from app.settings import bundled

templates = Jinja2Templates(directory=bundled("templates"))


def _compiled_templates_kept() -> None:
    """Templates compiled once per machine, not once per process start (~0.6 s of `serve`'s
    start, and of every worker's): Jinja keeps each one's bytecode, keyed by its source's
    checksum, in a directory of this user's only (mode 0700, its owner checked). Where no such
    directory can be had, every start compiles them, as before."""
    try:
        templates.env.bytecode_cache = FileSystemBytecodeCache()
    except (OSError, RuntimeError):
        pass


_compiled_templates_kept()

NAV = (
    ("explore", "/", "Explore"),
    ("sweeps", "/sweeps", "Sweeps"),
    ("upload", "/upload", "Upload"),
    ("compare", "/compare", "Compare"),
    ("history", "/history", "History"),
    ("production", "/production", "Production"),
    ("claims", "/claims", "Claims"),
    ("plan", "/plan", "Plan"),
    ("pricing", "/pricing", "Pricing"),
    ("catalog", "/catalog", "Catalog"),
    ("metrics", "/metrics", "Metrics"),
)

# The pages among which the selection follows the user (issue 47): their nav links carry it.
# Sweeps and Claims take it along too (app/views/carried.py) and hand it back.
CARRIED_PAGES = ("explore", "compare", "history", "plan", "sweeps", "claims")


def _number(value: Any) -> Any:
    """Database decimals read as floats; anything else as it is."""
    return float(value) if isinstance(value, Decimal) else value


def _unit(unit: Any) -> str | None:
    """The unit argument; a digit count (the filters' old `num(1)`, `usd(4)`) is dropped, since
    the rule decides the digits. tests/web/test_number_format.py keeps templates free of them."""
    if unit is None or isinstance(unit, str):
        return unit
    if isinstance(unit, int) and not isinstance(unit, bool):
        return None
    raise TypeError(f"a number filter takes a unit string, not {unit!r}")


def fmt_num(value: Any, unit: Any = None, missing: str = numbers.MISSING) -> str:
    """Every number on a page: app.domain.numbers' rule (3 significant digits, separators)."""
    if isinstance(value, str) and value:
        return value
    return numbers.fmt_number(_number(value) if value != "" else None, _unit(unit), missing=missing)


def fmt_usd(value: Any, per: Any = "", missing: str = numbers.MISSING) -> str:
    return numbers.fmt_usd(_number(value), _unit(per) or "", missing=missing)


def fmt_load(value: Any, unit: Any = None) -> str:
    return numbers.fmt_load(_number(value), _unit(unit))


def fmt_count(n: Any, noun: str, many: str | None = None) -> str:
    return numbers.fmt_count(_number(n), noun, many)


def fmt_ms(value: Any, seconds: bool = False, missing: str = numbers.MISSING) -> str:
    return numbers.fmt_ms(_number(value), seconds=seconds, missing=missing)


def fmt_pct(fraction: Any) -> str:
    return numbers.fmt_percent(_number(fraction))


# Inside <script type="application/json"> the HTML parser looks for "</script" and "<!--"; with
# these escaped no uploaded text can end the block or open markup, and JSON.parse reads it back.
# U+2028/2029 are escaped too, so the text stays valid even if someone evaluates it as JS.
# orjson and bytes.replace run in C: a figure of 40k points is a few MB. The replacements run on
# orjson's UTF-8 bytes, decoded once after: on text with any non-ASCII character (a "≤" or "×" in
# a label) str.replace scans two bytes per character, six times. UTF-8 never puts a lead byte
# inside another character, so U+2028/2029's bytes match only those characters.
_SCRIPT_ESCAPES = (
    ("<", "\\u003c"),
    (">", "\\u003e"),
    ("&", "\\u0026"),
    ("'", "\\u0027"),
    ("\u2028", "\\u2028"),
    ("\u2029", "\\u2029"),
)
_SCRIPT_ESCAPES_UTF8 = tuple((char.encode(), escaped.encode()) for char, escaped in _SCRIPT_ESCAPES)


def script_json(value: Any, indent: int | None = None) -> Markup:
    """JSON safe to place in a <script type="application/json"> block or an attribute.

    NaN and ±inf become null (JSON has neither; JSON.parse would refuse the whole block)."""
    option = orjson.OPT_NON_STR_KEYS | (orjson.OPT_INDENT_2 if indent else 0)
    data = orjson.dumps(value, option=option)
    for char, escaped in _SCRIPT_ESCAPES_UTF8:
        data = data.replace(char, escaped)
    return Markup(data.decode())


def source_label(kind: str | None) -> str:
    """A sweep's source kind as shown: "demo" reads "demo (synthetic)"."""
    return SOURCE_KIND_LABELS.get(kind or "", kind or "–")


def web_link(url: Any) -> str | None:
    """An address from data a page may link: http(s) only (never `javascript:` or `data:`)."""
    if isinstance(url, str) and url.lower().startswith(("https://", "http://")):
        return url
    return None


templates.env.filters["web_link"] = web_link


def provenance_of(sweep: Any) -> str:
    """'MLPerf Inference LoadGen v4.1 · independent harness': who made a sweep's numbers."""
    return provenance_text(
        getattr(sweep, "harness", None),
        getattr(sweep, "harness_version", None),
        getattr(sweep, "provenance", None),
    )


templates.env.filters["provenance"] = provenance_of
templates.env.filters["num"] = fmt_num
templates.env.filters["unit"] = fmt_num  # the old name of `num` with a unit
templates.env.filters["load"] = fmt_load
templates.env.filters["counted"] = fmt_count
templates.env.filters["plural"] = numbers.plural
templates.env.filters["ms"] = fmt_ms
templates.env.filters["pct"] = fmt_pct
templates.env.filters["signed_pct"] = numbers.fmt_signed_percent  # a difference in percent
templates.env.filters["source_label"] = source_label
templates.env.filters["usd"] = fmt_usd
# Replaces Jinja's own tojson (which leaves U+2028/2029 alone): one way to embed data for scripts.
templates.env.filters["tojson"] = script_json
templates.env.globals["nav"] = NAV
templates.env.globals["carried_pages"] = CARRIED_PAGES
templates.env.globals["unit_words"] = UNIT_WORDS  # accounting modes' units (issue 37)
templates.env.globals["split_label"] = split_label  # "8P + 8D"
templates.env.globals["required_meta"] = REQUIRED_META  # what every sweep needs to be stored
templates.env.filters["covariates"] = point_covariates  # a point's extra → its covariates
templates.env.globals["covariate_keys"] = POINT_COVARIATES
templates.env.globals["covariate_labels"] = COVARIATE_LABELS
templates.env.globals["version"] = __version__
templates.env.globals["static"] = static_url
templates.env.globals["PLOTLY_JS"] = PLOTLY_JS
templates.env.globals["scripts"] = SCRIPTS


def render(
    request: Request, name: str, context: dict[str, Any], status_code: int = 200
) -> Response:
    return templates.TemplateResponse(request, name, context, status_code=status_code)
