"""A plan as JSON (/api/plan, `paretoscope plan --format json`) and as plain text (the CLI)."""

from __future__ import annotations

import math

from sqlalchemy.orm import Session

from app.domain import plan as domain
from app.domain.cost import HOURS_PER_MONTH
from app.domain.numbers import fmt_count, fmt_number, fmt_percent, fmt_usd
from app.domain.plan import Crossover, Demand
from app.schemas.answers.typed.plan import (
    CrossoverDict,
    PlanAgentsDict,
    PlanCoreDict,
    PlanCostDict,
    PlanOptionDict,
    PlanResultOutDict,
)
from app.schemas.answers.typed.token_classes import TokenClassesOutDict
from app.schemas.readoff import ReadoffQuery
from app.services.analysis import Params
from app.services.planning.costs import PlanCost
from app.services.planning.sizing import Option, Plan, PlanResult
from app.services.readoff import price_columns, token_classes
from app.services.readoff.document import e2e_field, operating_split, slo_json
from app.services.sweeps.likeness import differences_json

UNIT_WORDS = {
    "requests_per_s": "req/s",
    "output_tok_s": "output tok/s",
    "tokens_per_day": "tok/day",
    "concurrent_sessions": "concurrent sessions",
}


def plan_json(plan: Plan, query: ReadoffQuery) -> PlanCoreDict:
    """The plan as `paretoscope plan --format json` writes it and /api/plan begins its answer."""
    d = plan.demand
    low, high = domain.demand_range(d.average)
    cheapest = plan.cheapest
    return {
        "slo": slo_json(query, plan.params),
        "demand": {
            "unit": d.unit,
            "average": d.average,
            "peak": d.peak,
            "peak_to_average": d.peak_to_average,
            "headroom": d.headroom,
            "sized_for": d.peak * (1 + d.headroom),
            "hours_per_month": HOURS_PER_MONTH,
        },
        "cheapest": None if cheapest is None else _option_json(cheapest),
        # Systems of different scenarios: no cheapest named, unless allow_different.
        "refused": plan.refused,
        "same_configuration": plan.likeness.same_configuration,
        "differences": differences_json(plan.likeness),
        "results": [_result_json(r, plan.params, plan.refused is None) for r in plan.results],
        "chart_range": {"low": low, "high": high},
        "crossovers": [] if plan.refused else [_crossover_json(plan, c) for c in plan.crossovers],
        "crossovers_exact": plan.crossovers_exact,
    }


def plan_classes(
    session: Session, plan: Plan, query: ReadoffQuery
) -> dict[int, TokenClassesOutDict]:
    """Each planned system's tokens by class at its operating point, at the query's API prices
    and under its price columns (issue 50), by sweep id."""
    columns = price_columns.columns_for(
        session, query.price_set, query.pricing, query.usd_per_gpu_hour
    )
    analyses = [r.analysis for r in plan.results]
    return token_classes.for_results(session, analyses, query.class_prices(), columns)


def _option_json(option: Option, just_above: Demand | None = None) -> PlanOptionDict:
    """An option with its $/month at the given demand, or just above another average demand."""
    monthly = option.cost.usd_per_month
    if just_above is not None:
        monthly = option.step.cost_above(just_above.average, just_above.sizing_factor)
    return {
        "key": option.step.key,
        "label": option.label,
        "sweep_id": option.result.sweep_id,
        "profile_id": option.cost.price.profile_id,
        "price": option.cost.price.name,
        "usd_per_month": monthly,
    }


def _crossover_json(plan: Plan, c: Crossover) -> CrossoverDict:
    """Just above c.demand the cheapest changes; each side's $/month is taken just above it."""
    d = plan.demand
    at = Demand(d.unit, c.demand, d.peak_to_average, d.headroom)
    return {
        "demand": c.demand,
        "demand_multiple": c.demand / d.average,
        "cheapest_below": _option_json(plan.option(c.from_key), at),
        "cheapest_above": _option_json(plan.option(c.to_key), at),
    }


def _result_json(r: PlanResult, params: Params, ranked: bool = True) -> PlanResultOutDict:
    a = r.analysis
    op = a.readoff.operating_point
    s = r.sizing
    return {
        "sweep_id": r.sweep_id,
        "name": r.name,
        "hardware": a.meta.hardware,
        "num_gpus": a.meta.num_gpus,
        "num_prefill_gpus": r.num_prefill_gpus,
        "num_decode_gpus": r.num_decode_gpus,
        "fleet_prefill_gpus": None if r.fleet_split is None else r.fleet_split[0],
        "fleet_decode_gpus": None if r.fleet_split is None else r.fleet_split[1],
        "throughput_per": r.throughput_per,
        "goodput_tok_s_per_unit": r.goodput_tok_s_per_unit,
        "status": r.status,
        "reason": r.reason,
        "cheapest": r.cheapest and ranked,
        "operating_point": None
        if op is None
        else {
            "point_id": op.point_id,
            "concurrency": op.concurrency,
            "request_rate": None
            if op.request_rate is None or math.isinf(op.request_rate)
            else op.request_rate,
            "interactivity_tok_s_user": op.interactivity_tok_s_user,
            **e2e_field(a, op.point_id),
            "split": operating_split(a),
        },
        "goodput_tok_s_per_gpu": a.readoff.goodput_tok_s_per_gpu,
        "goodput_requests_per_s": a.readoff.goodput_requests_per_s,
        "input_tokens_per_request": r.shape.input_tokens,
        "output_tokens_per_request": r.shape.output_tokens,
        "goodput_requests_per_s_per_replica": r.goodput_requests_per_s_per_replica,
        "goodput_per_replica": r.goodput_per_replica,
        "demand_requests_per_s_average": r.demand_requests_per_s_average,
        "replicas": None if s is None else s.replicas,
        "gpus": None if s is None else s.gpus,
        "utilization_peak": None if s is None else s.utilization_peak,
        "utilization_average": None if s is None else s.utilization_average,
        "kw": r.kw,
        "mwh_per_month": r.mwh_per_month,
        "power_reason": r.power_reason,
        "basis": params.basis,
        "costs": [_cost_json(c) for c in r.costs],
        # Price columns without a price for this sweep's GPU: its $ figures are unknown.
        "unpriced": [{"label": label, "reason": reason} for label, reason in r.unpriced],
        # The cheapest applicable price for this sweep; the brief asks for a top-level figure.
        "usd_per_month": min(
            (c.usd_per_month for c in r.costs if c.usd_per_month is not None), default=None
        ),
        # Sized in concurrent sessions (issue 49): sessions per replica, the Wilson interval
        # of the session attainment there, and the fleet if its lower end must meet the target.
        "agents": None if r.agents is None else r.agents.as_json(),
    }


def _cost_json(c: PlanCost) -> PlanCostDict:
    return {
        "profile_id": c.price.profile_id,
        "name": c.price.name,
        "kind": c.kind,
        "usd_per_gpu_hour": c.price.usd_per_gpu_hour,
        "usd_per_month": c.usd_per_month,
        "breakdown_usd_per_month": c.breakdown_usd_per_month,
        "usd_per_mtok_average": c.usd_per_mtok_average,
        "cheapest": c.cheapest,
        "reason": c.reason,
    }


def differences_lines(body: PlanCoreDict) -> list[str]:
    """What differs among the systems planned (app.domain.likeness), in one line."""
    listed = body["differences"]
    return ["systems differ: " + "; ".join(d["text"] for d in listed)] if listed else []


def plan_text(body: PlanCoreDict) -> str:
    """A plain table of a plan_json body: one line per system, then the cheapest and crossovers."""
    d = body["demand"]
    unit = UNIT_WORDS[d["unit"]]
    lines = [
        f"demand: {fmt_number(d['average'])} {unit} average, peak {fmt_number(d['peak'])} "
        f"(× {fmt_number(d['peak_to_average'])}), headroom {fmt_percent(d['headroom'])}",
        *differences_lines(body),
        "",
    ]
    for r in body["results"]:
        star = " ★ cheapest" if r["cheapest"] else ""
        lines.append(f"[{r['status']}] sweep {r['sweep_id']}: {r['name']}{star}")
        if r["replicas"] is None:
            lines.append(f"    {r['reason']}")
            lines.extend(f"    $: {u['reason']} · {u['label']}" for u in r["unpriced"])
            continue
        lines.append(
            f"    {fmt_count(r['replicas'], 'replica')} × {fmt_count(r['num_gpus'], 'GPU')}"
            f" = {fmt_count(r['gpus'], 'GPU')}; "
            f"goodput {fmt_number(r['goodput_per_replica'], unit)} per replica; utilisation "
            f"{fmt_percent(r['utilization_peak'])} at peak, "
            f"{fmt_percent(r['utilization_average'])} at average"
        )
        if r["fleet_prefill_gpus"] is not None:
            lines.append(
                f"    split: {r['num_prefill_gpus']}P + {r['num_decode_gpus']}D per replica; "
                f"fleet {fmt_count(r['fleet_prefill_gpus'], 'prefill GPU')} + "
                f"{fmt_count(r['fleet_decode_gpus'], 'decode GPU')}"
            )
        if r["throughput_per"] != "GPU" and r["goodput_tok_s_per_unit"] is not None:
            per_unit = fmt_number(r["goodput_tok_s_per_unit"], "tok/s")
            lines.append(f"    goodput {per_unit} per {r['throughput_per']}")
        power = (
            f"{fmt_number(r['kw'], 'kW')}, {fmt_number(r['mwh_per_month'], 'MWh')}/month"
            if r["kw"] is not None
            else r["power_reason"]
        )
        lines.extend(_agents_lines(r.get("agents")))
        lines.append(f"    power: {power}")
        for c in r["costs"]:
            if c["usd_per_month"] is None:
                lines.append(f"    $: {c['reason']} · {c['name']}")
                continue
            mark = " ★" if c["cheapest"] else ""
            mtok = c["usd_per_mtok_average"]
            per_mtok = "" if mtok is None else f", {fmt_usd(mtok, '/Mtok')} at average"
            lines.append(
                f"    {fmt_usd(c['usd_per_month'], '/month')}{per_mtok} · {c['name']}{mark}"
            )
        for u in r["unpriced"]:
            lines.append(f"    $: {u['reason']} · {u['label']}")
        if not r["costs"] and not r["unpriced"]:
            lines.append(
                "    $: no price chosen: give --price-set, --pricing or --usd-per-gpu-hour"
            )
    cheapest = body["cheapest"]
    lines.append("")
    if cheapest is None:
        lines.append("cheapest: none (no system meets the SLO with a price)")
    else:
        lines.append(
            f"cheapest: {cheapest['label']}, {fmt_usd(cheapest['usd_per_month'], '/month')}"
        )
    for x in body["crossovers"]:
        lines.append(
            f"above {fmt_number(x['demand'], unit)} ({fmt_number(x['demand_multiple'])}× demand): "
            f"{x['cheapest_above']['label']} is cheapest"
        )
    return "\n".join(lines) + "\n"


def _agents_lines(agents: PlanAgentsDict | None) -> list[str]:
    """A plan in concurrent sessions: the session attainment read, and the cautious fleet."""
    if agents is None:
        return []
    low, high = agents["attainment_low"], agents["attainment_high"]
    interval = "" if low is None or high is None else f" [{fmt_percent(low)}, {fmt_percent(high)}]"
    lines = [
        f"    sessions: {fmt_percent(agents['attainment'])}{interval} of "
        f"{fmt_count(agents['count'], 'session')} met every turn "
        f"(target {fmt_percent(agents['target'])}, {fmt_count(agents['cut'], 'cut session')} "
        "apart)"
    ]
    if agents["replicas_conservative"] is None:
        lines.append("    at the interval's lower end: no load level meets the target")
    else:
        lines.append(
            f"    at the interval's lower end: "
            f"{fmt_number(agents['concurrent_sessions_per_replica_conservative'])} sessions "
            f"per replica, {fmt_count(agents['replicas_conservative'], 'replica')} = "
            f"{fmt_count(agents['gpus_conservative'], 'GPU')}"
        )
    return lines
