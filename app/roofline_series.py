"""Physics-limit curves and vendor-claim markers as Plotly traces for charts.pareto_figure."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from sqlalchemy.orm import Session

from app.analysis import SweepAnalysis
from app.charts import colour
from app.domain.claims import DEFAULT_CONTEXT, on_basis, per_gpu_tok_s, weight_precision
from app.domain.roofline import HardwareSpec, ModelArch, RooflinePoint, roofline_curve
from app.models import VendorClaim
from app.queries import catalog
from app.queries import claims as claim_queries

CLAIM_COLOUR = "#7F3C8D"  # not in the sweep palette, so a claim never looks like a sweep
MAX_CURVES = 8
MEASURES_WORDS = {"per_user": "per user", "per_gpu": "per GPU", "system": "for the system"}


@dataclass(frozen=True)
class Curve:
    """One ceiling curve: what it is for and its points (B = 1 … B_max)."""

    hardware: str
    gpus: int
    model: str
    precision: str
    kv_precision: str
    ctx: int
    points: list[RooflinePoint]

    @property
    def name(self) -> str:
        return (
            f"Physics limit · {self.hardware} × {self.gpus} · {self.model} {self.precision}"
            f" · ctx {self.ctx:,}"
        )


def ceiling_curve(
    arch: ModelArch,
    hw: HardwareSpec,
    *,
    hardware: str,
    model: str,
    gpus: int,
    precision: str,
    ctx: int,
    kv_precision: str = "bf16",
    accepted_length: float = 1.0,
    efficiency: float = 1.0,
    mem_frac: float = 0.9,
) -> Curve:
    points = roofline_curve(
        arch,
        hw,
        max(ctx, 1),
        weight_precision=precision,
        kv_precision=kv_precision,
        num_gpus=gpus,
        bw_efficiency=efficiency,
        accepted_length=accepted_length,
        mem_frac=mem_frac,
    )
    return Curve(hardware, gpus, model, precision, kv_precision, ctx, points)


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
        "text": [f"batch {p.batch:,} ({p.bound}-bound)" for p in curve.points],
        "hovertemplate": (
            f"<b>{curve.name}</b><br>%{{text}}<br>≤ %{{x:,.1f}} tok/s/user"
            "<br>≤ %{y:,.1f} output tok/s/GPU<extra></extra>"
        ),
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
    return f"Claim · {claim.vendor} · {claim.value_tok_s:,.0f} tok/s {measures}"


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
    xs = [x for r in results for x in r.xs if x is not None and x > 0]
    ys = [y for r in results for y in r.ys if y is not None and y > 0]
    for trace in traces:
        xs += [x for x in trace.get("x", []) if x is not None and x > 0]
        ys += [y for y in trace.get("y", []) if y is not None and y > 0]
    for claim in claims:
        x, y, _ = claim_xy(claim, basis)
        xs += [x] if x else []
        ys += [y] if y else []
    xs, ys = xs or [1.0], ys or [1.0]
    x0 = min(xs) / 2 if log_x else 0.0
    y0 = min(ys) / 2 if log_y else 0.0
    return x0, max(xs) * 1.05, y0, max(ys) * 1.05


def explore_traces(
    session: Session,
    results: list[SweepAnalysis],
    *,
    model: str | None,
    precision: str | None,
    ctx: int | None,
    claims_mode: str,
    basis: str,
    log_x: bool = False,
    log_y: bool = False,
) -> list[dict[str, Any]]:
    """Ceiling curves per hardware × GPU count of the shown sweeps, then claim markers."""
    traces = [
        roofline_trace(curve, colour(i))
        for i, curve in sweep_curves(session, results, model, precision, ctx)
    ]
    if claims_mode == "none":
        return traces
    pairs = [(str(r.meta["hardware"]), r.meta.get("model")) for r in results]
    claims = claim_queries.claims_for(session, pairs, everything=claims_mode == "all")
    extent = bounds(results, traces, claims, basis, log_x, log_y)
    from app.claims_audit import physics_for  # it draws with this module: import late

    verdicts = {c.id: physics_for(session, c).verdict for c in claims}
    return traces + claim_traces(claims, basis, extent, verdicts)


def sweep_curves(
    session: Session,
    results: list[SweepAnalysis],
    model: str | None,
    precision: str | None,
    ctx: int | None,
) -> list[tuple[int, Curve]]:
    """One curve per distinct hardware × GPUs × precision × context, coloured as its sweep."""
    spec = catalog.match_model_spec(session, model)
    if spec is None:
        return []
    arch = catalog.model_arch(spec)
    curves: list[tuple[int, Curve]] = []
    seen: set[tuple[str, int, str, int]] = set()
    for i, result in enumerate(results):
        meta = result.meta
        row = catalog.hardware_by_key(session, str(meta["hardware"]))
        hw = catalog.hardware_spec(row) if row else None
        if row is None or hw is None:
            continue
        weights = precision or weight_precision(meta.get("precision")) or "bf16"
        context = ctx or _sweep_context(meta)
        key = (row.key, int(meta["num_gpus"]), weights, context)
        if key in seen or len(curves) >= MAX_CURVES:
            continue
        seen.add(key)
        curve = ceiling_curve(
            arch, hw, hardware=row.key, model=spec.key, gpus=key[1], precision=weights, ctx=context
        )
        if curve.points:
            curves.append((i, curve))
    return curves


def _sweep_context(meta: dict[str, Any]) -> int:
    isl, osl = meta.get("isl"), meta.get("osl")
    if isl is not None and osl is not None:
        return int(isl) + int(osl) // 2
    return DEFAULT_CONTEXT
