"""The `paretoscope` command: serve, import, export, plan, readoff, check, db upgrade, seed."""

from __future__ import annotations

import argparse
import ipaddress
import os
import sys
from pathlib import Path
from typing import NoReturn

from sqlalchemy.exc import SQLAlchemyError

from app.domain.numbers import fmt_count
from app.settings import get_settings
from app.store.db import make_engine, make_sessionmaker, session_scope

MAX_ID = 2**31 - 1  # sweep ids are 32-bit on Postgres


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="paretoscope", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)

    serve = sub.add_parser("serve", help="migrate, seed an empty database, and serve the dashboard")
    serve.add_argument("--host", default=None, help="default: PARETOSCOPE_HOST or 127.0.0.1")
    serve.add_argument("--port", type=int, default=None, help="default: PARETOSCOPE_PORT or 8000")
    serve.add_argument("--workers", type=int, default=1)
    serve.add_argument("--reload", action="store_true", help="restart on code changes")

    imp = sub.add_parser("import", help="import result files (all or nothing)")
    imp.add_argument("files", nargs="+", type=Path)
    # The options are the upload fields of the API and the page, as --flags (num_gpus is
    # --num-gpus); --gpus and --name stay as the older spellings.
    imp.add_argument("--hardware", help="GPU key, e.g. H100 (when the files do not say)")
    imp.add_argument(
        "--num-gpus", "--gpus", dest="num_gpus", type=_whole, help="all GPUs of the deployment"
    )
    imp.add_argument("--model")
    imp.add_argument(
        "--sweep", "--name", dest="sweep", help="sweep name (when the files do not say)"
    )
    imp.add_argument("--engine")
    imp.add_argument("--precision")
    imp.add_argument("--isl", type=_whole)
    imp.add_argument("--osl", type=_whole)
    imp.add_argument(
        "--tag",
        action="append",
        default=[],
        help="tag every imported sweep, e.g. baseline:main or nightly (repeatable)",
    )

    exp = sub.add_parser("export", help="write sweeps as canonical CSV or JSON")
    exp.add_argument("sweep_ids", nargs="+", type=_whole)
    exp.add_argument("--format", choices=("csv", "json"), default="csv")
    exp.add_argument("-o", "--output", type=Path, help="file to write (default: stdout)")

    _plan_parser(sub)

    db = sub.add_parser("db", help="database commands")
    db_sub = db.add_subparsers(dest="db_command", required=True)
    db_sub.add_parser("upgrade", help="migrate the database to the newest schema")

    ro = sub.add_parser(
        "readoff", help="goodput at an SLO per sweep, with $/Mtok (as /api/readoff, CSV or JSON)"
    )
    ro.add_argument("sweep_ids", nargs="+", type=_sweep_id)
    _readoff_options(ro)
    ro.add_argument("--format", choices=("csv", "json"), default="csv")
    ro.add_argument("-o", "--output", type=Path, help="file to write (default: stdout)")

    _check_parser(sub)

    seed = sub.add_parser(
        "seed", help="load seed_data/ (catalogs are upserted, sweeps deduplicated)"
    )
    seed.add_argument("--if-empty", action="store_true", help="only seed an empty database")

    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # bad options: argparse printed the usage and the reason
        return exc.code if isinstance(exc.code, int) else 2
    handler = {
        "serve": _serve,
        "import": _import,
        "export": _export,
        "plan": _plan,
        "readoff": _readoff,
        "check": _check,
        "db": _db,
        "seed": _seed,
    }[args.command]
    from sqlalchemy.exc import SQLAlchemyError

    try:
        return handler(args)
    except SQLAlchemyError as exc:
        # Whatever a command did not catch itself: the reason in one line, never a traceback.
        reason = str(getattr(exc, "orig", None) or exc).strip().splitlines()
        print(f"error: database: {reason[0] if reason else type(exc).__name__}", file=sys.stderr)
        return 2


IMPORT_FIELDS = ("sweep", "hardware", "num_gpus", "model", "engine", "precision", "isl", "osl")


def option_name(field: str) -> str:
    """An upload field as `import` spells it: num_gpus is --num-gpus."""
    return "--" + field.replace("_", "-")


def _whole(text: str) -> int:
    """An integer option; a 5,000-digit one is refused without echoing it (int() would raise
    an unhelpful ValueError past 4,300 digits)."""
    if len(text.strip()) > 20:
        raise argparse.ArgumentTypeError(f"{text[:20]}… is not a whole number of sensible size")
    try:
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None


def _sweep_id(text: str) -> int:
    """A sweep id: a whole number from 1 to 2^31 - 1 (the database's INTEGER keys)."""
    value = _whole(text)
    if not 1 <= value <= MAX_ID:
        raise argparse.ArgumentTypeError(f"no sweep {value} (ids run from 1 to {MAX_ID})")
    return value


def _serve(args: argparse.Namespace) -> int:
    import uvicorn

    settings = get_settings()
    _upgrade()
    _seed_database(if_empty=settings.seed_on_start, only_if_enabled=True)
    host = args.host or settings.host
    port = args.port or settings.port
    if host != settings.host:
        # The app (in this process or in workers) reads the bind host for its Host allow-list.
        os.environ["PARETOSCOPE_HOST"] = host
        get_settings.cache_clear()
    for line in exposure_warnings(host, settings.write_token is not None):
        print(f"WARNING: {line}", file=sys.stderr, flush=True)
    print(f"Paretoscope on http://{host}:{port}", flush=True)
    uvicorn.run(
        "app.main:serve_app",
        factory=True,
        host=host,
        port=port,
        workers=args.workers,
        reload=args.reload,
    )
    return 0


def exposure_warnings(host: str, has_token: bool) -> list[str]:
    """What `serve` says when it binds beyond this machine with writes open to anyone."""
    if has_token or _is_loopback(host):
        return []
    return [
        f"serving on {host or 'every address'}, which other machines can reach, "
        "and PARETOSCOPE_WRITE_TOKEN is not set:",
        "anyone who can reach this port can upload, edit and delete sweeps and prices.",
        "Set PARETOSCOPE_WRITE_TOKEN, and PARETOSCOPE_ALLOWED_HOSTS to the names users type "
        "(see README, 'Running on a shared host').",
    ]


def _is_loopback(host: str) -> bool:
    name = host.strip().strip("[]").lower()
    if name == "localhost":
        return True
    try:
        return ipaddress.ip_address(name).is_loopback
    except ValueError:
        return False


def _upgrade() -> None:
    from app.store.migrate import upgrade_to_head

    upgrade_to_head(get_settings().database_url)


def _import(args: argparse.Namespace) -> int:
    from app.ingest import IngestError, UploadFile
    from app.services import uploads

    _upgrade()
    fields = {
        name: None if getattr(args, name) is None else str(getattr(args, name))
        for name in IMPORT_FIELDS
    }
    missing = [str(p) for p in args.files if not p.is_file()]
    if missing:
        print(f"error: no such file: {', '.join(missing)}", file=sys.stderr)
        return 2
    settings = get_settings()
    try:
        files = [UploadFile(p.name, p.read_bytes()) for p in args.files]
    except OSError as exc:
        print(f"error: {exc.filename}: cannot read ({exc.strerror})", file=sys.stderr)
        return 2
    factory = make_sessionmaker(make_engine(settings.database_url))
    session = factory()
    names = ", ".join(str(p) for p in args.files)
    try:
        limits = uploads.limits_for(settings.max_unpacked_bytes)
        stored = uploads.store_checked(session, files, fields, limits, args.tag)
        for warning in stored.warnings:
            print(f"warning: {warning}", file=sys.stderr)
        for item in uploads.saved_json(stored.saved, session):
            state = "created" if item["created"] else "exists "
            points = fmt_count(item["points"], "point")
            print(f"{state} sweep {item['id']}: {item['name']} ({points})")
    except IngestError as exc:
        session.rollback()
        print("error: nothing was imported", file=sys.stderr)
        for error in exc.errors:
            print(f"  {error.spelled(option_name)}", file=sys.stderr)
        return 2
    except (SQLAlchemyError, MemoryError, RecursionError, ValueError) as exc:
        # Whatever slipped past validation: name the files and the reason, never a traceback.
        session.rollback()
        reason = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        print(f"error: nothing was imported from {names}: {reason}", file=sys.stderr)
        return 2
    finally:
        session.close()
    return 0


def _export(args: argparse.Namespace) -> int:
    from app.services import exports
    from app.store.sweeps import NotFound, get_sweep

    out_of_range = [i for i in args.sweep_ids if not 1 <= i <= MAX_ID]
    if out_of_range:
        print(f"error: no sweep {out_of_range[0]} (ids run from 1)", file=sys.stderr)
        return 2
    factory = make_sessionmaker(make_engine(get_settings().database_url))
    with session_scope(factory) as session:
        try:
            sweeps = [get_sweep(session, i) for i in args.sweep_ids]
        except NotFound as exc:
            print(f"error: {exc}", file=sys.stderr)
            return 2
        text = exports.sweeps_csv(sweeps) if args.format == "csv" else exports.sweeps_json(sweeps)
    if args.output:
        try:
            args.output.write_text(text, encoding="utf-8")
        except OSError as exc:
            print(f"error: {args.output}: cannot write ({exc.strerror})", file=sys.stderr)
            return 2
    else:
        sys.stdout.write(text)
    return 0


def _plan_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    plan = sub.add_parser(
        "plan", help="replicas, GPUs, $/month and power to serve a demand at an SLO"
    )
    plan.add_argument("sweep_ids", nargs="+", type=_sweep_id)
    demand = plan.add_mutually_exclusive_group(required=True)
    demand.add_argument("--requests-per-s", type=float, help="average demand, requests/s")
    demand.add_argument("--output-tok-s", type=float, help="average demand, output tokens/s")
    demand.add_argument("--tokens-per-day", type=float, help="average input + output tokens/day")
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
    plan.add_argument("--pricing", type=int, action="append", default=[], help="profile id")
    plan.add_argument("--usd-per-gpu-hour", type=float, help="an inline rental price")
    plan.add_argument("--format", choices=("text", "json"), default="text")


def _plan(args: argparse.Namespace) -> int:
    import json

    from pydantic import ValidationError

    from app.services import plan as planner
    from app.services import plan_json
    from app.services.plan_query import PlanParams
    from app.services.readoff_json import slo_json
    from app.store.sweeps import NotFound

    names = (
        "requests_per_s output_tok_s tokens_per_day peak_to_average headroom ttft_ms tpot_ms "
        "min_tok_s_user e2el_ms percentile ttft_percentile tpot_percentile e2el_percentile mode "
        "attainment basis pricing usd_per_gpu_hour price_set"
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
    _upgrade()
    factory = make_sessionmaker(make_engine(get_settings().database_url))
    with session_scope(factory) as session:
        try:
            plan = planner.run(session, list(dict.fromkeys(args.sweep_ids)), query, demand)
        except NotFound as exc:
            print(f"error: {exc}", file=sys.stderr)
            return 2
        body = {"slo": slo_json(query, plan.params), **plan_json.plan_json(plan)}
    if args.format == "json":
        sys.stdout.write(json.dumps(body, indent=2) + "\n")
    else:
        sys.stdout.write(plan_json.plan_text(body))
    return 0


def _readoff(args: argparse.Namespace) -> int:
    import json

    from pydantic import ValidationError

    _upgrade()
    from app.services import exports
    from app.services.readoff_json import readoff_document, run_query
    from app.services.readoff_query import ReadoffQuery
    from app.store.sweeps import NotFound

    fields = {
        k: v
        for k, v in vars(args).items()
        if k not in ("command", "sweep_ids", "format", "output") and v is not None
    }
    try:
        query = ReadoffQuery.model_validate({**fields, "points": args.format == "json"})
    except ValidationError as exc:
        for e in exc.errors():
            where = ".".join(str(p) for p in e["loc"])
            print(f"error: {where}: {e['msg']}".replace("error: : ", "error: "), file=sys.stderr)
        return 2
    factory = make_sessionmaker(make_engine(get_settings().database_url))
    with session_scope(factory) as session:
        try:
            if args.format == "json":
                doc = readoff_document(session, args.sweep_ids, query)
                text = json.dumps(doc, indent=2) + "\n"
            else:
                params, results, columns = run_query(session, args.sweep_ids, query)
                text = exports.readoff_csv(results, params, columns)
        except NotFound as exc:
            print(f"error: {exc}", file=sys.stderr)
            return 2
    if args.output:
        args.output.write_text(text, encoding="utf-8")
    else:
        sys.stdout.write(text)
    return 0


def _readoff_options(parser: argparse.ArgumentParser) -> None:
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
    parser.add_argument("--price-set", help="e.g. costr@2026-09-08 (one profile per GPU)")
    parser.add_argument("--pricing", type=int, action="append", default=[], help="profile id")
    parser.add_argument("--usd-per-gpu-hour", type=float, help="your own rental price")


def _check_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    check = sub.add_parser(
        "check",
        help="regression gate: exit 1 when CANDIDATE falls behind BASELINE at an SLO",
        description="Exit 0: no regression beyond the tolerance; 1: a regression; 2: bad usage "
        "or data. Sweeps are named by id, by tag (the newest sweep with it) or by name.",
    )
    check.add_argument("candidate", help="sweep id, tag or name")
    check.add_argument("--baseline", required=True, help="sweep id, tag or name")
    _readoff_options(check)
    check.add_argument("--tolerance", type=float, default=0.05, help="fraction, 0.05 = 5 %%")
    check.add_argument("--format", choices=("text", "markdown", "json"), default="markdown")
    check.add_argument("--base-url", help="for the Compare link (default: PARETOSCOPE_BASE_URL)")

    def one_line(message: str) -> NoReturn:
        # A CI log wants the reason, not the usage text: one line, status 2.
        print(f"error: {message}", file=sys.stderr)
        raise SystemExit(2)

    setattr(check, "error", one_line)  # noqa: B010 (an instance override argparse calls)


def _check(args: argparse.Namespace) -> int:
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
    _upgrade()
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


def _db(args: argparse.Namespace) -> int:
    _upgrade()
    print("database is at the newest schema")
    return 0


def _seed(args: argparse.Namespace) -> int:
    _upgrade()
    counts = _seed_database(if_empty=args.if_empty)
    print("seeded: " + (", ".join(f"{k} {v}" for k, v in counts.items()) or "nothing (not empty)"))
    return 0


def _seed_database(*, if_empty: bool, only_if_enabled: bool = False) -> dict[str, int]:
    from app.services.seed import seed, seed_if_empty

    if only_if_enabled and not if_empty:
        return {}
    factory = make_sessionmaker(make_engine(get_settings().database_url))
    with session_scope(factory) as session:
        if if_empty:
            return {"seeded": 1} if seed_if_empty(session) else {}
        return seed(session)


if __name__ == "__main__":
    sys.exit(main())
