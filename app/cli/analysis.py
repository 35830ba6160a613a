"""The CLI's read-off commands: `readoff`, `plan` and the regression gate `check`."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn

from app.cli.common import migrated, sweep_id
from app.settings import get_settings
from app.store.db import session_scope

if TYPE_CHECKING:
    from sqlalchemy.orm import Session


def plan_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    plan = sub.add_parser(
        "plan", help="replicas, GPUs, $/month and power to serve a demand at an SLO"
    )
    plan.add_argument("sweep_ids", nargs="+", type=sweep_id)
    demand = plan.add_mutually_exclusive_group(required=True)
    demand.add_argument("--requests-per-s", type=float, help="average demand, requests/s")
    demand.add_argument("--output-tok-s", type=float, help="average demand, output tokens/s")
    demand.add_argument("--tokens-per-day", type=float, help="average input + output tokens/day")
    demand.add_argument(
        "--concurrent-sessions",
        type=float,
        help="average concurrent sessions (agents); sized from a multi-turn run's sessions",
    )
    plan.add_argument("--peak-to-average", type=float, default=1.0, help="capacity serves peak")
    plan.add_argument("--headroom", type=float, default=0.0, help="fraction kept free, e.g. 0.2")
    for name in ("ttft-ms", "tpot-ms", "min-tok-s-user", "e2el-ms"):
        plan.add_argument(f"--{name}", type=float, help="SLO limit (not checked when omitted)")
    for metric in ("ttft", "tpot", "e2el"):
        plan.add_argument(
            f"--{metric}-percentile",
            help=f"{metric.upper()}'s own percentile, p50 … p99.9 (default: --percentile)",
        )
    plan.add_argument("--percentile", default="p90", help="default percentile of every limit")
    plan.add_argument("--price-set", help="e.g. costr@2026-09-08 (one profile per GPU)")
    plan.add_argument("--mode", default="percentile", help="percentile or requests")
    plan.add_argument("--attainment", type=float, default=0.9)
    plan.add_argument("--basis", default="output", help="tokens for $/Mtok: output|total|input")
    plan.add_argument(
        "--accounting",
        choices=("gpu", "decode_gpu", "prefill_gpu", "node", "kw"),
        default="gpu",
        help="goodput also per decode GPU, prefill GPU, node or kW (sizing stays per GPU)",
    )
    plan.add_argument("--pricing", type=int, action="append", default=[], help="profile id")
    plan.add_argument("--usd-per-gpu-hour", type=float, help="an inline rental price")
    plan.add_argument("--format", choices=("text", "json"), default="text")


def plan(args: argparse.Namespace) -> int:
    import json

    from pydantic import ValidationError

    from app.schemas.plan import PlanParams
    from app.services.planning import sizing as planner
    from app.store.sweeps import NotFound
    from app.views import plan as plan_json

    names = (
        "requests_per_s output_tok_s tokens_per_day concurrent_sessions peak_to_average headroom "
        "ttft_ms tpot_ms "
        "min_tok_s_user e2el_ms percentile ttft_percentile tpot_percentile e2el_percentile mode "
        "attainment basis accounting pricing usd_per_gpu_hour price_set"
    ).split()
    values = {n: getattr(args, n) for n in names if getattr(args, n) is not None}
    try:
        query = PlanParams.model_validate(values)
    except ValidationError as exc:
        for e in exc.errors():
            field = ".".join(str(p) for p in e["loc"]).replace("_", "-")
            print(f"error: {'--' + field + ': ' if field else ''}{e['msg']}", file=sys.stderr)
        return 2
    demand = query.demand()
    assert demand is not None  # argparse requires one demand option
    with migrated() as factory, session_scope(factory) as session:
        try:
            plan = planner.run(session, list(dict.fromkeys(args.sweep_ids)), query, demand)
        except NotFound as exc:
            print(f"error: {exc}", file=sys.stderr)
            return 2
        body = plan_json.plan_json(plan, query)
    if args.format == "json":
        sys.stdout.write(json.dumps(body, indent=2) + "\n")
    else:
        sys.stdout.write(plan_json.plan_text(body))
    return 0


def readoff(args: argparse.Namespace) -> int:
    import json

    from pydantic import ValidationError

    from app.schemas.readoff import ReadoffQuery
    from app.services import exports
    from app.services.readoff import token_classes
    from app.services.readoff.document import readoff_document, run_query
    from app.store.sweeps import NotFound
    from app.views.readoff_text import readoff_table

    fmt = args.format or ("table" if args.output is None and sys.stdout.isatty() else "csv")
    fields = {
        k: v
        for k, v in vars(args).items()
        if k not in ("command", "sweep_ids", "format", "output", "preset") and v is not None
    }
    from app.services.checks.gate import resolve
    from app.services.errors import Invalid

    with migrated() as factory, session_scope(factory) as session:
        try:
            fields, preset = readoff_defaults(session, fields, args.preset)
        except NotFound as exc:
            print(f"error: --preset: {exc}", file=sys.stderr)
            return 2
        try:
            query = ReadoffQuery.model_validate({**fields, "points": fmt == "json"})
        except ValidationError as exc:
            for e in exc.errors():
                where = ".".join(str(p) for p in e["loc"])
                message = f"error: {where}: {e['msg']}".replace("error: : ", "error: ")
                print(message, file=sys.stderr)
            return 2
        try:
            # Ids, tags (the newest sweep carrying it) or names, as `check` resolves them.
            ids = list(dict.fromkeys(resolve(session, r, "sweep").sweep_id for r in args.sweep_ids))
            if fmt == "json":
                doc = readoff_document(session, ids, query)
                text = json.dumps(doc, indent=2) + "\n"
            else:
                params, results, columns = run_query(session, ids, query)
                classes = token_classes.shown(session, results, query.class_prices(), columns)
                if fmt == "table":
                    text = readoff_table(results, params, columns, preset, classes)
                else:
                    text = exports.readoff_csv(results, params, columns, classes)
        except Invalid as exc:
            print(f"error: {exc.message}", file=sys.stderr)
            return 2
        except NotFound as exc:
            print(f"error: {exc}", file=sys.stderr)
            return 2
    if args.output:
        args.output.write_text(text, encoding="utf-8")
    else:
        sys.stdout.write(text)
    return 0


SLO_OPTIONS = ("ttft_ms", "tpot_ms", "min_tok_s_user", "e2el_ms")
PRICE_OPTIONS = ("price_set", "pricing", "usd_per_gpu_hour")
# The Chat preset's statistics, for a database without the seeded presets.
CHAT_PERCENTILES: dict[str, Any] = {
    "percentile": "p99",
    "tpot_percentile": "p50",
    "attainment": 0.9,
}


def readoff_defaults(
    session: Session, fields: dict[str, Any], preset_key: str | None
) -> tuple[dict[str, Any], str | None]:
    """The read-off's options with the pages' defaults: `--preset` sets its limits (options
    given beside it win); no limit at all is the pages' default preset; a limit without a
    percentile is read at that preset's percentiles; no price is the pages' default price set
    (when the database has it). Returns the fields and the preset used."""
    limits, used = _preset_defaults(session, preset_key, fields)
    merged = {k: v for k, v in limits.items() if v is not None}
    merged.update({k: v for k, v in fields.items() if v is not None and v != []})
    if fields.get("min_tok_s_user") is not None:  # it replaces the preset's TPOT limit
        merged.pop("tpot_ms", None)
    if not any(fields.get(k) for k in PRICE_OPTIONS):
        _default_price_set(session, merged)
    return merged, used


def _preset_defaults(
    session: Session, preset_key: str | None, fields: dict[str, Any]
) -> tuple[dict[str, Any], str | None]:
    """The limits and percentiles of `--preset`, else of the pages' default preset (its
    percentiles only when limits are given); the preset used."""
    from app.services.readoff.query import preset_limits
    from app.store.models import SloPreset
    from app.store.sweeps import NotFound
    from app.views.explore_state import DEFAULT_PRESET

    given_limits = any(fields.get(k) is not None for k in SLO_OPTIONS)
    chosen = session.get(SloPreset, preset_key) if preset_key else None
    if preset_key and chosen is None:
        known = ", ".join(p.key for p in session.query(SloPreset).order_by(SloPreset.key))
        raise NotFound(f"no SLO preset {preset_key!r} (known: {known or 'none'})")
    default = chosen or session.get(SloPreset, DEFAULT_PRESET)
    limits = preset_limits(default) if default is not None else dict(CHAT_PERCENTILES)
    used = default.key if default is not None else None
    if chosen is None and given_limits:  # your own limits, at the default preset's percentiles
        limits = {k: v for k, v in limits.items() if k not in SLO_OPTIONS}
        used = None
    return limits, used


def _default_price_set(session: Session, merged: dict[str, Any]) -> None:
    """The pages' default price set, when the database has it."""
    from app.services.readoff import price_columns
    from app.store import pricing
    from app.views.explore_state import DEFAULT_PRICE_SET

    sets = dict(price_columns.price_sets(pricing.list_profiles(session)))
    if DEFAULT_PRICE_SET in sets:
        merged["price_set"] = DEFAULT_PRICE_SET


def readoff_options(parser: argparse.ArgumentParser) -> None:
    """The read-off's SLO and price options, shared by `readoff` and `check`."""
    for metric in ("ttft", "tpot", "e2el"):
        parser.add_argument(f"--{metric}-ms", type=float, help=f"{metric.upper()} limit in ms")
        parser.add_argument(
            f"--{metric}-percentile",
            help=f"{metric.upper()}'s own percentile, p50 … p99.9 (default: --percentile)",
        )
    parser.add_argument("--min-tok-s-user", type=float, help="instead of --tpot-ms: 1000/value")
    parser.add_argument("--percentile", default="p90", help="default percentile of every limit")
    parser.add_argument("--mode", choices=("percentile", "requests"), default="percentile")
    parser.add_argument("--attainment", type=float, default=0.9)
    parser.add_argument(
        "--ci-level", type=float, default=0.95, help="level of every interval, 0.5 … 0.999"
    )
    parser.add_argument("--basis", choices=("output", "total", "input"), default="output")
    parser.add_argument(
        "--accounting",
        choices=("gpu", "decode_gpu", "prefill_gpu", "node", "kw"),
        default="gpu",
        help="throughput per total GPU (default), decode GPU, prefill GPU, node or kW",
    )
    parser.add_argument("--price-set", help="e.g. costr@2026-09-08 (one profile per GPU)")
    parser.add_argument("--pricing", type=int, action="append", default=[], help="profile id")
    parser.add_argument("--usd-per-gpu-hour", type=float, help="your own rental price")
    for name, words in (
        ("input", "uncached input"),
        ("cached-input", "cached (prefix-hit) input"),
        ("output", "output"),
    ):
        parser.add_argument(
            f"--usd-per-mtok-{name}", type=float, help=f"API price of {words} tokens, $/Mtok"
        )
    parser.add_argument(
        "--interactivity",
        choices=("tpot", "e2e"),
        help="x axis: per-token (1000 / TPOT, default) or E2E-normalized (needs samples)",
    )
    parser.add_argument(
        "--e2e-percentile", type=float, help="percentile of E2EL / OSL for e2e (default 90)"
    )


def check_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    check = sub.add_parser(
        "check",
        help="regression gate: exit 1 when CANDIDATE falls behind BASELINE at an SLO",
        description="Exit 0: no regression beyond the tolerance, or a comparison (the two are "
        "not one configuration: hardware, GPU count or precision differs); 1: a regression "
        "(goodput fell by more than the tolerance and the candidate ÷ baseline ratio's interval "
        "lies below 1×); 2: bad usage or data, unknown (nothing to compare: no shared range, "
        "or neither meets the SLO), or different models, workloads, ISL/OSL or a demo/mock-server "
        "sweep against a measured one (unless --allow-different). Sweeps are named by id, by "
        "tag (the newest sweep with it) or by name.",
    )
    check.add_argument("candidate", help="sweep id, tag or name")
    check.add_argument("--baseline", required=True, help="sweep id, tag or name")
    readoff_options(check)
    check.add_argument("--tolerance", type=float, default=0.05, help="fraction, 0.05 = 5 %%")
    check.add_argument(
        "--allow-different",
        action="store_true",
        help="compare different models, workloads or ISL/OSL (a comparison, never a regression)",
    )
    check.add_argument(
        "--scope",
        choices=("slo", "frontier"),
        default="slo",
        help="slo: the read-off at the SLO; frontier: the whole frontier against the baseline's "
        "confidence band",
    )
    check.add_argument(
        "--share",
        type=float,
        default=0.30,
        help="--scope frontier: share of the shared range below the band that fails, 0.3 = 30 %%",
    )
    check.add_argument(
        "--format", choices=("text", "markdown", "json", "junit"), default="markdown"
    )
    check.add_argument(
        "--junit", type=Path, help="also write JUnit XML here (one test case per criterion)"
    )
    check.add_argument("--base-url", help="for the Compare link (default: PARETOSCOPE_BASE_URL)")

    def one_line(message: str) -> NoReturn:
        # A CI log wants the reason, not the usage text: one line, status 2.
        print(f"error: {message}", file=sys.stderr)
        raise SystemExit(2)

    setattr(check, "error", one_line)  # noqa: B010 (an instance override argparse calls)


def check(args: argparse.Namespace) -> int:
    import json

    from pydantic import ValidationError

    from app.schemas.check import CheckQuery
    from app.services.checks import gate as check
    from app.services.checks import report as check_report
    from app.services.checks.gate import DifferentWork
    from app.services.errors import Invalid
    from app.store.sweeps import NotFound

    fields = {
        k: v
        for k, v in vars(args).items()
        if k not in ("command", "format", "junit") and v is not None
    }
    try:
        query = CheckQuery.model_validate(fields)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = "--" + ".".join(str(p) for p in first["loc"]).replace("_", "-")
        print(f"error: {where}: {first['msg']}", file=sys.stderr)
        return 2
    with migrated() as factory, session_scope(factory) as session:
        try:
            report = check.run(session, query, get_settings().base_url)
        except DifferentWork as exc:
            print(f"error: {exc.reason}; give --allow-different to compare them", file=sys.stderr)
            return 2
        except Invalid as exc:
            print(f"error: {exc.field}: {exc.message}", file=sys.stderr)
            return 2
        except NotFound as exc:
            print(f"error: {exc}", file=sys.stderr)
            return 2
    doc = report.answer
    if args.format == "json":
        sys.stdout.write(json.dumps(doc, indent=2) + "\n")
    elif args.format == "text":
        sys.stdout.write(check_report.text(doc))
    elif args.format == "junit":
        sys.stdout.write(check_report.junit(doc))
    else:
        sys.stdout.write(doc["summary"])
    if args.junit is not None:
        args.junit.write_text(check_report.junit(doc), encoding="utf-8")
    return report.exit_code
