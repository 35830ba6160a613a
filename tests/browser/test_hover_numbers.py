"""Pareto hovers are built in the browser from numbers (app.charts.shown): what Chromium shows on
hover is, character for character, the text the server's formatter writes for that point."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

from sqlalchemy import select

from app.charts.hover import hover_header, point_hover
from app.charts.shown import cell, write
from app.domain.numbers import fmt_load, fmt_number
from app.domain.verdict import Slo
from app.services import analysis
from app.services.analysis import Params
from app.store.db import make_engine, make_sessionmaker
from app.store.models import Sweep
from tests.browser.conftest import run_server
from tests.helpers import battery


def test_the_browser_writes_each_number_sent_back_as_the_formatter_text(page: Any) -> None:
    page.goto(page.base + "/")
    page.wait_for_function("() => window.paretoscope && window.paretoscope.charts")
    texts = sorted(
        {text for v in battery() for text in (fmt_number(v), fmt_number(v, sig=6), fmt_load(v))}
    )
    sent = [cell(text) for text in texts]
    numbers = [c for c in sent if not isinstance(c, str)]
    written = page.evaluate("(vs) => vs.map(window.paretoscope.charts.numberText)", sent)
    assert written == texts  # numbers written back exactly; texts passed through untouched
    assert len(numbers) > 0.9 * len(texts)
    # And the Python twin the tests use writes every double as the browser does.
    doubles = battery() + [float(n) for n in numbers]
    assert page.evaluate("(vs) => vs.map(window.paretoscope.charts.numberText)", doubles) == [
        write(v) for v in doubles
    ]


def hover_label(page: Any, curve: int, point: int) -> str:
    """The hover label's text as Chromium draws it (lines run together) for one point. The label
    before goes first: Plotly throttles hovers, so a quick second one would find it still there."""
    label = "#pareto-chart .hoverlayer .hovertext"
    page.evaluate("() => window.Plotly.Fx.unhover(document.querySelector('#pareto-chart'))")
    page.wait_for_selector(label, state="detached")
    page.evaluate(
        """([c, p]) => { const gd = document.querySelector('#pareto-chart');
          window.Plotly.Fx.hover(gd, [{curveNumber: c, pointNumber: p}]); }""",
        [curve, point],
    )
    page.wait_for_selector(label, state="attached")
    return str(page.text_content(label))


def as_drawn(html: str) -> str:
    return re.sub(r"<[^>]+>", "", html)


def test_a_pareto_hover_sent_after_the_page_reads_the_server_formatters_text_in_chromium(
    page: Any, site_folder: Callable[[str], Path]
) -> None:
    params = Params(Slo(ttft_ms=500, tpot_ms=40))
    # Every chart sends its hover numbers after the page here (app.charts.deferred): the hovers
    # read the same once joined; small pages keep them inline, as the other browser tests see.
    folder = site_folder("hovers")
    with run_server(folder, PARETOSCOPE_HOVERS_INLINE_MAX_POINTS="1") as url:
        engine = make_engine(f"sqlite:///{folder / 'browser.db'}")
        with make_sessionmaker(engine)() as session:
            ids = list(session.scalars(select(Sweep.id).order_by(Sweep.id)))
            results, _ = analysis.run(session, ids, params, [], None)
        engine.dispose()
        picked = "&".join(f"sweep={i}" for i in ids)
        page.goto(f"{url}/?{picked}&picked=1&ttft_ms=500&tpot_ms=40")
        page.wait_for_selector("#pareto-chart[data-drawn='1']", state="attached")
        assert page.get_attribute("#pareto-chart", "data-hovers") == "joined"
        data = page.evaluate(
            "() => document.querySelector('#pareto-chart')._fullData.map("
            "(t) => [t.name, t.meta && t.meta.sweep, t.mode])"
        )
        checked = 0
        for result in results:
            header = hover_header(result)
            name = str(result.meta.name)
            frontier = data.index([name, result.meta.id, "lines+markers"])
            expected = as_drawn(f"{header}<br>{point_hover(result, result.frontier[0], params)}")
            assert hover_label(page, frontier, 0) == expected
            checked += 1
            if result.dominated:
                dominated = data.index([f"{name} (dominated)", result.meta.id, "markers"])
                text = point_hover(result, result.dominated[0], params)
                assert hover_label(page, dominated, 0) == as_drawn(
                    f"{header}<br>{text}<br><i>dominated</i>"
                )
                checked += 1
    assert checked >= len(ids) + 2  # every frontier, and dominated points of two sweeps at least
    assert page.problems == []
