"""Physics-limit curves and vendor-claim markers as Plotly traces for charts.pareto_figure."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from app.charts.pareto import pareto_figure
from app.charts.style import colour
from app.domain.claims import on_basis, per_gpu_tok_s
from app.domain.numbers import fmt_number
from app.schemas.answers.typed.common import PlotlyFigureDict
from app.services.analysis import SweepAnalysis
from app.services.ceilings.physics import Curve, ShownPhysics
from app.services.claims.audit import Placement
from app.store import claims as claim_queries
from app.store.models import VendorClaim

CLAIM_COLOUR = "#7F3C8D"  # not in the sweep palette, so a claim never looks like a sweep
MEASURES_WORDS = {"per_user": "per user", "per_gpu": "per GPU", "system": "for the system"}


def roofline_trace(curve: Curve, line_colour: str) -> dict[str, Any]:
    """The ceiling as a dashed line: per-user ceiling (x) against tok/s per GPU (y), output."""
    return {
        "type": "scatter",
        "mode": "lines",
        "meta": "roofline",
        "name": curve.name,
        "legendgroup": "physics",
        "x": [p.interactivity_tok_s_user for p in curve.points],
        "y": [p.tok_s_per_gpu for p in curve.points],
        "text": [
            f"batch {p.batch:,} ({p.bound}-bound)<br>≤ {fmt_number(p.interactivity_tok_s_user)}"
            f" tok/s/user<br>≤ {fmt_number(p.tok_s_per_gpu)} output tok/s/GPU"
            for p in curve.points
        ],
        "hovertemplate": f"<b>{curve.name}</b><br>%{{text}}<extra></extra>",
        "line": {"color": line_colour, "width": 1.5, "dash": "dash"},
    }


def claim_xy(claim: VendorClaim, basis: str) -> tuple[float | None, float | None, str | None]:
    """Where a claim sits: x tok/s/user, y tok/s/GPU on `basis`; None where it does not say."""
    facts = claim_queries.domain_claim(claim)
    per_gpu, _ = per_gpu_tok_s(facts)
    y = on_basis(per_gpu, facts, basis)
    note = None
    if y is None:
        y, note = per_gpu, f"counts {claim.token_basis} tokens; the chart shows {basis} tokens"
    if facts.measures == "per_user":
        return facts.value_tok_s, (y if facts.batch is not None else None), note
    return facts.interactivity_tok_s_user, y, note


def claim_label(claim: VendorClaim) -> str:
    measures = MEASURES_WORDS.get(claim.measures, claim.measures)
    return f"Claim · {claim.vendor} · {fmt_number(claim.value_tok_s, 'tok/s')} {measures}"


def claim_traces(
    claims: list[VendorClaim],
    basis: str,
    bounds: tuple[float, float, float, float],
    verdicts: Mapping[int, str] | None = None,
) -> list[dict[str, Any]]:
    """A diamond where the claim gives both axes; a dotted line where it gives only one."""
    x0, x1, y0, y1 = bounds
    traces = []
    for claim in claims:
        x, y, note = claim_xy(claim, basis)
        if x is None and y is None:
            continue
        lines = [
            f"<b>{claim_label(claim)}</b> ({claim.token_basis} tokens)",
            f"{claim.hardware} × {claim.scope_gpus} · {claim.model or 'model not stated'}"
            f" · {claim.precision or 'precision not stated'}",
            f"{claim.claimed_at or 'undated'} · audit: /claims/{claim.id}",
        ]
        if verdicts and claim.id in verdicts:
            lines.append(f"physics: {verdicts[claim.id]}")
        if note:
            lines.append(note)
        trace: dict[str, Any] = {
            "type": "scatter",
            "meta": "claim",
            "name": claim_label(claim),
            "legendgroup": f"claim-{claim.id}",
            "hovertemplate": "%{text}<extra></extra>",
        }
        xs: list[float]
        ys: list[float]
        if x is not None and y is not None:
            xs, ys, mode = [x], [y], "markers"
            trace["marker"] = {
                "color": CLAIM_COLOUR,
                "size": 14,
                "symbol": "diamond-open" if note else "diamond",
                "line": {"color": "#000", "width": 1},
            }
        else:
            if x is not None:
                xs, ys = [x, x], [y0, y1]
            else:
                assert y is not None
                xs, ys = [x0, x1], [y, y]
            mode = "lines"
            trace["line"] = {"color": CLAIM_COLOUR, "width": 2, "dash": "dot"}
        text = "<br>".join(lines)
        trace.update(mode=mode, x=xs, y=ys, text=[text] * len(xs))
        traces.append(trace)
    return traces


def bounds(
    results: list[SweepAnalysis],
    traces: list[dict[str, Any]],
    claims: list[VendorClaim],
    basis: str,
    log_x: bool = False,
    log_y: bool = False,
) -> tuple[float, float, float, float]:
    """Axis extent for claim lines: every measured point, curve and claim, with a margin."""
    xs = [x for r in results for x in _positive(r.xs)]
    ys = [y for r in results for y in _positive(r.ys)]
    for trace in traces:
        xs += _positive(trace.get("x", []))
        ys += _positive(trace.get("y", []))
    for claim in claims:
        x, y, _ = claim_xy(claim, basis)
        xs += [x] if x else []
        ys += [y] if y else []
    xs, ys = xs or [1.0], ys or [1.0]
    x0 = min(xs) / 2 if log_x else 0.0
    y0 = min(ys) / 2 if log_y else 0.0
    return x0, max(xs) * 1.05, y0, max(ys) * 1.05


def _positive(values: Iterable[float | None]) -> list[float]:
    return [v for v in values if v is not None and v > 0]


def kv_bound_trace(curve: Curve, line_colour: str) -> dict[str, Any] | None:
    """Where the KV cache binds: the ceiling's last batch, B_max, beyond which the context's KV
    of one more sequence does not fit in the memory left after the weights (issue 50); None for
    an empty curve."""
    if not curve.points:
        return None
    last = curve.points[-1]
    text = (
        f"KV cache full at batch {last.batch:,}: KV bytes/token × {curve.ctx:,} tokens of context"
        " × batch ≤ memory left after the weights"
    )
    return {
        "type": "scatter",
        "mode": "markers",
        "meta": "kv-bound",
        "name": f"KV cache bound · {curve.name}",
        "legendgroup": "physics",
        "showlegend": False,
        "x": [last.interactivity_tok_s_user],
        "y": [last.tok_s_per_gpu],
        "text": [text],
        "hovertemplate": f"<b>{curve.name}</b><br>%{{text}}<extra></extra>",
        "marker": {"symbol": "square-open", "size": 10, "color": line_colour},
    }


def explore_traces(
    shown: ShownPhysics,
    results: list[SweepAnalysis],
    *,
    basis: str,
    log_x: bool = False,
    log_y: bool = False,
) -> list[dict[str, Any]]:
    """Ceiling curves coloured as their sweeps, then claim markers placed within the extent."""
    traces = [roofline_trace(curve, colour(i)) for i, curve in shown.curves]
    traces += [t for i, curve in shown.curves if (t := kv_bound_trace(curve, colour(i)))]
    if not shown.claims:
        return traces
    extent = bounds(results, traces, shown.claims, basis, log_x, log_y)
    return traces + claim_traces(shown.claims, basis, extent, shown.verdicts)


def placement_figure(placement: Placement) -> PlotlyFigureDict:
    """A claim's audit chart: the compared sweeps' frontiers, its physics limit (dashed) and the
    claim; log x when asked, or (by default) when the claim is far out."""
    results, params, claim, ceiling = (
        placement.results,
        placement.params,
        placement.claim,
        placement.ceiling,
    )
    log_x = placement.log_x
    extra = [roofline_trace(ceiling, "#555555")] if ceiling is not None else []
    if log_x is None:
        log_x = far_out(claim, params.basis, results, extra)
    extent = bounds(results, extra, [claim], params.basis, log_x)
    extra += claim_traces([claim], params.basis, extent, {claim.id: placement.verdict})
    return pareto_figure(results, params, log_x=log_x, extra_traces=extra, limits_at_edge=False)


def far_out(
    claim: VendorClaim,
    basis: str,
    results: list[SweepAnalysis],
    traces: list[dict[str, Any]],
) -> bool:
    """Whether the claim's interactivity is over 5× everything else shown (then use log x)."""
    x, _, _ = claim_xy(claim, basis)
    others = [v for r in results for v in r.xs if v is not None and v > 0]
    others += [v for t in traces for v in t.get("x", []) if v is not None and v > 0]
    return x is not None and bool(others) and x > 5 * max(others)
