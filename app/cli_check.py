"""`paretoscope check`: the regression gate for CI, and the read-off options it shares with
`paretoscope readoff`. Exit 0: no regression beyond the tolerance; 1: a regression; 2: bad usage
or data, in one line."""

from __future__ import annotations

import argparse
import sys
from typing import NoReturn

from app.settings import get_settings
from app.store.db import make_engine, make_sessionmaker, session_scope
from app.store.migrate import upgrade_to_head


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
    parser.add_argument("--basis", choices=("output", "total", "input"), default="output")
    parser.add_argument("--price-set", help="e.g. costr@2026-09-08 (one profile per GPU)")
    parser.add_argument("--pricing", type=int, action="append", default=[], help="profile id")
    parser.add_argument("--usd-per-gpu-hour", type=float, help="your own rental price")


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    check = sub.add_parser(
        "check",
        help="regression gate: exit 1 when CANDIDATE falls behind BASELINE at an SLO",
        description="Exit 0: no regression beyond the tolerance; 1: a regression; 2: bad usage "
        "or data. Sweeps are named by id, by tag (the newest sweep with it) or by name.",
    )
    check.add_argument("candidate", help="sweep id, tag or name")
    check.add_argument("--baseline", required=True, help="sweep id, tag or name")
    readoff_options(check)
    check.add_argument("--tolerance", type=float, default=0.05, help="fraction, 0.05 = 5 %%")
    check.add_argument("--format", choices=("text", "markdown", "json"), default="markdown")
    check.add_argument("--base-url", help="for the Compare link (default: PARETOSCOPE_BASE_URL)")

    def one_line(message: str) -> NoReturn:
        # A CI log wants the reason, not the usage text: one line, status 2.
        print(f"error: {message}", file=sys.stderr)
        raise SystemExit(2)

    setattr(check, "error", one_line)  # noqa: B010 (an instance override argparse calls)


def run(args: argparse.Namespace) -> int:
    import json

    from pydantic import ValidationError

    from app.services import check, check_report
    from app.services.check import CheckQuery
    from app.services.errors import Invalid
    from app.store.sweeps import NotFound

    fields = {
        k: v for k, v in vars(args).items() if k not in ("command", "format") and v is not None
    }
    try:
        query = CheckQuery.model_validate(fields)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = "--" + ".".join(str(p) for p in first["loc"]).replace("_", "-")
        print(f"error: {where}: {first['msg']}", file=sys.stderr)
        return 2
    upgrade_to_head(get_settings().database_url)
    factory = make_sessionmaker(make_engine(get_settings().database_url))
    with session_scope(factory) as session:
        try:
            report = check.run(session, query, get_settings().base_url)
        except Invalid as exc:
            print(f"error: {exc.field}: {exc.message}", file=sys.stderr)
            return 2
        except NotFound as exc:
            print(f"error: {exc}", file=sys.stderr)
            return 2
    doc = report.document
    if args.format == "json":
        sys.stdout.write(json.dumps(doc, indent=2) + "\n")
    elif args.format == "text":
        sys.stdout.write(check_report.text(doc))
    else:
        sys.stdout.write(doc["summary"])
    return report.exit_code
