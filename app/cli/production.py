"""`paretoscope production`: a deployment's serving metrics (scrapes of /metrics, a query_range
answer, or a live pull) as windows beside a benchmark frontier; exit 1 when a window's
efficiency falls below --min-efficiency, for alerting from cron or CI."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from app.cli.common import migrated, whole
from app.settings import get_settings
from app.store.db import session_scope

if TYPE_CHECKING:
    from sqlalchemy.orm import Session

    from app.ingest.source import SourceFile

MAX_FILE_BYTES = 16 * 1024 * 1024


def production_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    prod = sub.add_parser(
        "production",
        help="serving metrics (Prometheus scrapes) as windows beside a frontier; exit 1 below "
        "--min-efficiency",
        description="Exit 0: no window surely below --min-efficiency (an unknown efficiency, or "
        "an interval reaching it, is not below); 1: a window whose whole interval is below it; "
        "2: bad usage or data.",
    )
    prod.add_argument("files", nargs="*", type=Path, help="scrapes of /metrics or query_range JSON")
    prod.add_argument("--times", help="scrape times in file order, comma-separated")
    prod.add_argument(
        "--start", help="instead of files, pull from Prometheus: from this time (Unix s or ISO)"
    )
    prod.add_argument("--end", help="… to this time (default: now)")
    prod.add_argument("--prometheus-url", help="default: PARETOSCOPE_PROMETHEUS_URL")
    prod.add_argument("--num-gpus", "--gpus", dest="num_gpus", type=whole)
    prod.add_argument("--selector", help='label="value" pairs, e.g. model_name="llama"')
    prod.add_argument("--window-s", type=float, default=300.0)
    prod.add_argument("--sweep", help="benchmark sweep id, tag or name for the frontier")
    prod.add_argument("--stat", default="p50", choices=("mean", "p50", "p90", "p95", "p99"))
    prod.add_argument("--basis", default="output", choices=("output", "total"))
    prod.add_argument(
        "--interpolation",
        default="staircase",
        choices=("staircase", "linear", "loglinear", "steffen"),
    )
    for name in ("ttft-ms", "tpot-ms", "e2el-ms"):
        prod.add_argument(f"--{name}", type=float, help="SLO limit (not checked when omitted)")
    prod.add_argument("--attainment", type=float, default=0.9)
    prod.add_argument("--min-efficiency", type=float)
    prod.add_argument("--usd-per-gpu-hour", type=float)
    prod.add_argument("--store", metavar="DEPLOYMENT", help="also store the windows under it")
    prod.add_argument("--format", choices=("text", "json"), default="text")


def production(args: argparse.Namespace) -> int:
    from app.domain.prom_window import WindowError
    from app.ingest.errors import IngestError
    from app.ingest.prometheus import PullError
    from app.services.errors import Conflict, Invalid

    if not args.files and args.start is None:
        print(
            "error: give two or more scrapes, a query_range answer, or --start to pull",
            file=sys.stderr,
        )
        return 2
    sources = _sources(args.files)
    if sources is None:
        return 2
    with migrated() as factory, session_scope(factory) as session:
        try:
            doc = _document(session, args, sources)
        except IngestError as exc:
            session.rollback()
            for error in exc.errors:
                print(f"error: {error}", file=sys.stderr)
            return 2
        except (WindowError, Conflict, PullError) as exc:
            session.rollback()
            print(f"error: {exc}", file=sys.stderr)
            return 2
        except Invalid as exc:
            session.rollback()
            print(f"error: --{exc.field.replace('_', '-')}: {exc.message}", file=sys.stderr)
            return 2
    if args.format == "json":
        sys.stdout.write(json.dumps(doc, indent=2) + "\n")
    else:
        sys.stdout.write(text(doc))
    return 1 if doc["below_min_efficiency"] else 0


def _sources(paths: list[Path]) -> list[SourceFile] | None:
    """The files read, or None once one is refused (the error printed)."""
    from app.ingest.source import SourceFile

    sources = []
    for path in paths:
        try:
            if path.stat().st_size > MAX_FILE_BYTES:
                print(f"error: {path}: over {MAX_FILE_BYTES:,} bytes", file=sys.stderr)
                return None
            sources.append(SourceFile(str(path), path.read_bytes()))
        except OSError as exc:
            print(f"error: {path}: cannot read ({exc.strerror})", file=sys.stderr)
            return None
    return sources


def _document(session: Session, args: argparse.Namespace, sources: list[SourceFile]) -> Any:
    """The windows made from the files (or pulled) beside the frontier; stored when asked."""
    from app.domain.prom_window import windows
    from app.ingest.telemetry import read_telemetry
    from app.services.checks.gate import resolve
    from app.services.telemetry import report
    from app.services.telemetry import windows as service
    from app.services.telemetry.options import ReportOptions

    selector = service.selector_of(args.selector)
    if args.start is not None:
        made, telemetry = _pulled(args, selector), None
    else:
        telemetry = read_telemetry(sources, service.times_of(args.times))
        made = windows(
            telemetry.scrapes,
            num_gpus=args.num_gpus,
            window_s=args.window_s,
            selector=selector,
        )
    sweep = None if args.sweep is None else resolve(session, args.sweep, "sweep").sweep_id
    options = ReportOptions(
        sweep_id=sweep,
        stat=args.stat,
        basis=args.basis,
        interpolation=args.interpolation,
        ttft_ms=args.ttft_ms,
        tpot_ms=args.tpot_ms,
        e2el_ms=args.e2el_ms,
        attainment=args.attainment,
        min_efficiency=args.min_efficiency,
        usd_per_gpu_hour=args.usd_per_gpu_hour,
    )
    doc = report.evaluate(session, made.points, options)
    doc["engine"] = made.engine
    doc["refused_windows"] = [
        {"start_s": r.start_s, "end_s": r.end_s, "reason": r.reason} for r in made.refused
    ]
    if args.store:
        given = service.DeploymentIn(name=args.store, num_gpus=args.num_gpus)
        source = "live" if telemetry is None else telemetry.source
        stored = service.store_windows(session, given, made, source, selector)
        doc["stored"] = service.ingested_json(stored)
    return doc


def _pulled(args: argparse.Namespace, selector: dict[str, str]) -> Any:
    import time

    from app.ingest.prometheus import PullError, pull
    from app.services.telemetry.windows import when

    settings = get_settings()
    url = args.prometheus_url or settings.prometheus_url
    if not url:
        raise PullError(
            "no Prometheus to pull from: give --prometheus-url or set PARETOSCOPE_PROMETHEUS_URL"
        )
    start = when(args.start, "start")
    end = time.time() if args.end is None else when(args.end, "end")
    got = pull(
        url,
        selector,
        start,
        end,
        num_gpus=args.num_gpus,
        window_s=args.window_s,
        timeout_s=settings.prometheus_timeout_s,
    )
    return got.windows


def _num(value: Any, digits: int = 1) -> str:
    return "unknown" if value is None else f"{value:,.{digits}f}"


def _efficiency(eff: dict[str, Any]) -> str:
    """One value where the data fix it, else the interval the buckets allow (– for open)."""
    if eff["value"] is not None:
        return f"{eff['value'] * 100:.1f} %"
    lower, upper = eff["bounds"]
    if lower is None and upper is None:
        return "unknown"
    low = "–" if lower is None else f"{lower * 100:.1f}"
    high = "–" if upper is None else f"{upper * 100:.1f}"
    return f"{low}…{high} %"


def text(doc: dict[str, Any]) -> str:
    lines = [f"engine: {doc['engine']}"]
    front = doc["frontier"]
    if front:
        lines.append(f"frontier: sweep {front['sweep_id']} ({front['sweep']})")
    lines.append(
        "start                 end                   req/s   tok/s/GPU  conc  TPOT p50 ms  "
        "efficiency  SLO"
    )
    for w in doc["windows"]:
        tpot = w["percentiles"]["tpot"]["p50"].get("value_ms")
        eff = w["efficiency"]
        shown = _efficiency(eff)
        slo = w["slo"]["verdict"] if w["slo"] else "-"
        lines.append(
            f"{w['start']:<21} {w['end']:<21} {_num(w['request_rate'], 2):>6} "
            f"{_num(w['tok_s_per_gpu']):>11} {_num(w['concurrency']):>5} {_num(tpot):>12}  "
            f"{shown:>10}  {slo}" + (f"  [{'; '.join(w['flags'])}]" if w["flags"] else "")
        )
        if eff["value"] is None and eff["reason"]:
            lines.append(
                f"  efficiency {'unknown' if shown == 'unknown' else shown}: {eff['reason']}"
            )
    for r in doc["refused_windows"]:
        lines.append(f"refused {r['start_s']:.0f}–{r['end_s']:.0f}: {r['reason']}")
    if "stored" in doc:
        s = doc["stored"]
        lines.append(f"stored {s['stored_windows']} windows under {s['deployment']!r}")
    return "\n".join(lines) + "\n"
