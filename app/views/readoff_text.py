"""The read-off as a terminal table (`paretoscope readoff` on a TTY): the answer strip's columns
(verdict, goodput with its interval, the operating point, $/Mtok per price column) in aligned
text, each reason written once below the table and referred to by number in the cells.

The figures are the CSV's (same results, same price cells), formatted as the pages format them.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from app.domain.accounting import UNIT_WORDS
from app.domain.numbers import fmt_count, fmt_number, fmt_percent, fmt_usd
from app.domain.sessions import axis_words
from app.domain.token_classes import CLASSES
from app.services.analysis import Params, SweepAnalysis
from app.services.readoff.price_columns import PriceColumn, price_cells

NAME_WIDTH = 48  # a sweep name beyond it is cut with "…" (the CSV and JSON keep it whole)
VERDICT = {"pass": "yes", "fail": "no", "unknown": "unknown", "borderline": "borderline"}


def readoff_table(
    results: list[SweepAnalysis],
    params: Params,
    columns: list[PriceColumn],
    preset: str | None,
    classes: Mapping[int, Mapping[str, Any]] | None = None,
) -> str:
    unit = UNIT_WORDS[params.accounting]
    lines = _header_lines(params, columns, preset, unit)
    reasons: dict[str, int] = {}

    def noted(reason: str | None) -> str:
        if not reason:
            return ""
        return f"[{reasons.setdefault(reason, len(reasons) + 1)}]"

    head = ["ID", "Sweep", "Meets SLO", f"Goodput tok/s/{unit}", "Interval", "At load"]
    head += ["tok/s/user"]
    head += (
        ["$/Mtok"]
        if len(columns) == 1
        else [f"$/Mtok ({chr(97 + i)})" for i in range(len(columns))]
    )
    ordered = sorted(
        results,
        key=lambda r: (
            r.readoff.goodput_tok_s_per_gpu is None,
            -(r.readoff.goodput_tok_s_per_gpu or 0.0),
        ),
    )
    rows = [_row(r, columns, noted) for r in ordered]
    lines += ["", *_aligned(head, rows)]
    multi_turn = [r for r in ordered if r.sessions is not None and r.sessions.sessions is not None]
    if multi_turn:
        lines += [
            "",
            "Sessions at the operating point (every turn within the SLO), by turn, agents:",
        ]
        lines += [session_line(r) for r in multi_turn]
    if classes:
        lines += ["", "Token classes at the operating point (input = uncached + cached):"]
        lines += [class_line(r.meta.name, classes[int(r.meta.id)]) for r in ordered]
    if reasons:
        lines.append("")
        lines += [f"[{n}] {reason}" for reason, n in reasons.items()]
    return "\n".join(lines) + "\n"


def _header_lines(
    params: Params, columns: list[PriceColumn], preset: str | None, unit: str
) -> list[str]:
    """The SLO, what goodput is counted in, and which price each $/Mtok column uses."""
    slo = params.slo.describe(params.mode == "requests")
    lines = [f"SLO: {slo}" + (f" (preset {preset})" if preset else "")]
    lines.append(
        f"Goodput: {params.basis} tok/s per {unit}, highest first; "
        f"± {params.ci_level:.0%} interval where there is one"
    )
    if params.interactivity == "e2e":  # per-token speed is the default axis, said nowhere else
        words = axis_words(params.interactivity, params.stat, params.e2e_percentile)
        lines.append(f"x axis: {words}")
    if len(columns) == 1:
        lines.append(f"$/Mtok at {columns[0].label}")
    elif columns:
        named = "; ".join(f"({chr(97 + i)}) {c.label}" for i, c in enumerate(columns))
        lines.append(f"$/Mtok at: {named}")
    return lines


def _row(
    r: SweepAnalysis, columns: list[PriceColumn], noted: Callable[[str | None], str]
) -> list[str]:
    """One sweep's line: its verdict (with a numbered reason), goodput, load and costs."""
    ro, ivs = r.readoff, r.intervals
    op = ro.operating_point
    shown = ro.shown_status
    why = ivs.borderline_reason if shown == "borderline" and ivs else None
    verdict = VERDICT[shown] + (
        " " + noted(why or ro.reason) if shown != "pass" and (why or ro.reason) else ""
    )
    g = ivs.goodput_tok_s_per_gpu if ivs else None
    interval = f"{fmt_number(g.low)}–{fmt_number(g.high)}" if g and g.known else ""
    load = ""
    if op is not None:
        load = (
            f"c={fmt_number(op.concurrency)}"
            if op.concurrency is not None
            else f"{fmt_number(op.request_rate)} req/s"
        )
    costs = []
    for cell in price_cells(r, columns):
        if cell.usd_per_mtok is not None:
            costs.append(fmt_usd(cell.usd_per_mtok))
        elif ro.goodput_tok_s_per_gpu is None:
            costs.append("–")  # no goodput: the verdict's reason says why
        else:
            costs.append(f"– {noted(cell.reason)}".rstrip())
    return [
        str(r.meta.id),
        _cut(r.meta.name),
        verdict,
        fmt_number(ro.goodput_tok_s_per_gpu),
        interval,
        load,
        fmt_number(op.interactivity_tok_s_user) if op else "",
        *costs,
    ]


def session_line(r: SweepAnalysis) -> str:
    """A multi-turn sweep's sessions with their Wilson interval, TTFT of first and later turns,
    and its agents at the SLO (the same figures as the JSON's `sessions`, `turns`, `agents`)."""
    figures = r.sessions
    assert figures is not None and figures.sessions is not None
    s = figures.sessions
    if s.attainment is None:
        parts = [f"every session cut ({fmt_count(s.cut, 'session')})"]
    else:
        parts = [
            f"{fmt_percent(s.attainment)} [{fmt_percent(s.low)}, {fmt_percent(s.high)}] of "
            f"{fmt_count(s.count, 'session')}, {s.cut} cut"
        ]
    t = figures.turns
    if t is not None:
        parts.append(
            f"TTFT p{t.percentile:g} first turn {fmt_number(t.first_ms, 'ms')}, "
            f"later {fmt_number(t.later_ms, 'ms')}"
        )
    a = figures.agents
    if a is not None and a.concurrency is not None:
        per_mw = "" if a.per_mw is None else f", {fmt_number(a.per_mw)} per MW"
        parts.append(
            f"agents {fmt_number(a.concurrency)} ({fmt_number(a.per_gpu)} per GPU{per_mw})"
        )
    elif a is not None:
        parts.append(f"agents: {a.reason}")
    return f"  {_cut(r.meta.name)}: " + "; ".join(parts)


def class_line(name: str, body: Mapping[str, Any]) -> str:
    """One sweep's token classes in a sentence: cached share and source, blended $/Mtok and
    each price column's break-even prices (uncached · cached · output, $/Mtok)."""
    share = body["cached_input_share"]
    parts = [
        "cached share unknown"
        if share is None
        else f"cached {fmt_number(share * 100)} % of input ({body['cached_input_source_words']})"
    ]
    if body["blended_usd_per_mtok"] is not None:
        parts.append(f"blended {fmt_usd(body['blended_usd_per_mtok'])}/Mtok")
        parts.append(f"{fmt_number(body['tokens_per_usd'])} tokens per $1")
    elif body["revenue_reason"]:
        parts.append(body["revenue_reason"])
    for row in body["break_even"]:
        even = row["usd_per_mtok"]
        if even:
            prices = " · ".join(fmt_usd(even[k]) for k in CLASSES)
            parts.append(f"break-even at {row['label']}: {prices} /Mtok")
    return f"  {_cut(name)}: " + "; ".join(parts)


def _cut(name: str) -> str:
    return name if len(name) <= NAME_WIDTH else name[: NAME_WIDTH - 1] + "…"


def _aligned(head: list[str], rows: list[list[str]]) -> list[str]:
    """Columns padded to their widest cell: text left, figures (from the fourth column) right;
    a column no row fills (no interval anywhere) is left out."""
    keep = [i for i in range(len(head)) if i < 4 or any(r[i] for r in rows)]
    head = [head[i] for i in keep]
    rows = [[r[i] for i in keep] for r in rows]
    widths = [max(len(c[i]) for c in [head, *rows]) for i in range(len(head))]

    def line(cells: list[str]) -> str:
        parts = [
            c.rjust(w) if i >= 3 or i == 0 else c.ljust(w)
            for i, (c, w) in enumerate(zip(cells, widths, strict=True))
        ]
        return "  ".join(parts).rstrip()

    return [line(head), line(["-" * w for w in widths]), *(line(r) for r in rows)]
