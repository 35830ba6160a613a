"""The `paretoscope` command: serve, mcp, import, export, plan, readoff, check, production, db
upgrade, seed."""

from __future__ import annotations

import argparse
import ipaddress
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from sqlalchemy.exc import SQLAlchemyError
from sqlalchemy.orm import Session

from app.cli.analysis import check, check_parser, plan, plan_parser, readoff, readoff_options
from app.cli.common import MAX_ID, upgrade, whole
from app.cli.production import production, production_parser
from app.domain.columns import PROVENANCES
from app.domain.numbers import fmt_count
from app.mcp import SdkMissing, require_sdk
from app.settings import get_settings
from app.store.db import make_engine, make_sessionmaker, session_scope

if TYPE_CHECKING:  # the services load lazily: `paretoscope --help` stays fast
    from app.services.upload.save import Stored


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="paretoscope", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)

    serve = sub.add_parser("serve", help="migrate, seed an empty database, and serve the dashboard")
    serve.add_argument("--host", default=None, help="default: PARETOSCOPE_HOST or 127.0.0.1")
    serve.add_argument("--port", type=int, default=None, help="default: PARETOSCOPE_PORT or 8000")
    serve.add_argument("--workers", type=int, default=1)
    serve.add_argument("--reload", action="store_true", help="restart on code changes")

    sub.add_parser(
        "mcp",
        help="serve the read-only MCP server over stdio (for an assistant's client to start)",
    )

    imp = sub.add_parser(
        "import",
        help="import result files or folders (all or nothing; files that are not results, "
        "such as logs, a README or plots, are listed as skipped)",
    )
    imp.add_argument("files", nargs="+", type=Path, metavar="FILE_OR_FOLDER")
    # The options are the upload fields of the API and the page, as --flags (num_gpus is
    # --num-gpus); --gpus and --name stay as the older spellings.
    imp.add_argument("--hardware", help="GPU key, e.g. H100 (when the files do not say)")
    imp.add_argument(
        "--num-gpus", "--gpus", dest="num_gpus", type=whole, help="all GPUs of the deployment"
    )
    imp.add_argument("--model")
    imp.add_argument(
        "--sweep", "--name", dest="sweep", help="sweep name (when the files do not say)"
    )
    imp.add_argument("--engine")
    imp.add_argument("--precision")
    imp.add_argument("--isl", type=whole)
    imp.add_argument("--osl", type=whole)
    imp.add_argument("--num-prefill-gpus", dest="num_prefill_gpus", type=whole)
    imp.add_argument("--num-decode-gpus", dest="num_decode_gpus", type=whole)
    imp.add_argument("--harness", help="benchmark harness that made the numbers (provenance)")
    imp.add_argument("--harness-version", dest="harness_version")
    imp.add_argument(
        "--provenance",
        choices=PROVENANCES,
        help="independent (MLPerf, InferenceX, your own run) or vendor (the vendor's own setup)",
    )
    imp.add_argument(
        "--disaggregated",
        action="store_true",
        help="disaggregated serving: a sweep whose files do not give its prefill and decode "
        "GPUs needs --num-prefill-gpus and --num-decode-gpus",
    )
    imp.add_argument(
        "--keep-apart",
        action="store_true",
        help="every result file a sweep of its own (by default the files of one configuration "
        "at different loads join one sweep)",
    )
    imp.add_argument(
        "--tag",
        action="append",
        default=[],
        help="tag every imported sweep, e.g. baseline:main or nightly (repeatable)",
    )

    exp = sub.add_parser("export", help="write sweeps as canonical CSV or JSON")
    exp.add_argument("sweep_ids", nargs="+", type=whole)
    exp.add_argument("--format", choices=("csv", "json"), default="csv")
    exp.add_argument("-o", "--output", type=Path, help="file to write (default: stdout)")

    plan_parser(sub)

    db = sub.add_parser("db", help="database commands")
    db_sub = db.add_subparsers(dest="db_command", required=True)
    db_sub.add_parser("upgrade", help="migrate the database to the newest schema")

    ro = sub.add_parser(
        "readoff", help="goodput at an SLO per sweep, with $/Mtok (as /api/readoff, CSV or JSON)"
    )
    ro.add_argument(
        "sweep_ids", nargs="+", metavar="SWEEP", help="sweep id, tag or name (as check takes)"
    )
    readoff_options(ro)
    ro.add_argument(
        "--preset",
        help="an SLO preset's limits and percentiles, e.g. chat-interactive (the pages' presets; "
        "limit options given beside it replace its limits one by one)",
    )
    # The pages' defaults: no SLO at all is the Chat preset; a limit without a percentile is
    # read at the Chat preset's (TTFT and E2EL p99, TPOT p50), not at p90.
    ro.set_defaults(percentile=None, attainment=None)
    ro.add_argument(
        "--format",
        choices=("table", "csv", "json"),
        help="table on a terminal, csv when stdout is a pipe or a file (default), or json",
    )
    ro.add_argument("-o", "--output", type=Path, help="file to write (default: stdout)")

    check_parser(sub)
    production_parser(sub)

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
        "mcp": _mcp,
        "import": _import,
        "export": _export,
        "plan": plan,
        "readoff": readoff,
        "check": check,
        "production": production,
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


IMPORT_FIELDS: tuple[str, ...] = ("sweep", "hardware", "num_gpus", "model", "engine", "precision")
IMPORT_FIELDS += ("isl", "osl", "num_prefill_gpus", "num_decode_gpus")
IMPORT_FIELDS += ("harness", "harness_version", "provenance")


def option_name(field: str) -> str:
    """An upload field as `import` spells it: num_gpus is --num-gpus."""
    return "--" + field.replace("_", "-")


def _serve(args: argparse.Namespace) -> int:
    import uvicorn

    settings = get_settings()
    if settings.mcp_http:
        try:  # refused before migrating: the app would not start without it
            require_sdk("PARETOSCOPE_MCP_HTTP (the MCP server at /mcp)")
        except SdkMissing as missing:
            print(f"error: {missing}", file=sys.stderr)
            return 2
    upgrade()
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
    if args.reload:
        os.environ["PARETOSCOPE_RELOAD_TEMPLATES"] = "true"  # edited templates too, in workers
        get_settings.cache_clear()
    uvicorn.run(
        "app.main:serve_app",
        factory=True,
        host=host,
        port=port,
        workers=args.workers,
        reload=args.reload,
        # Forwarded headers are honoured only from PARETOSCOPE_TRUSTED_PROXIES (the app reads
        # them itself), not from uvicorn's default of 127.0.0.1.
        proxy_headers=False,
    )
    return 0


def _mcp(args: argparse.Namespace) -> int:
    try:
        require_sdk("`paretoscope mcp`")
    except SdkMissing as missing:
        print(f"error: {missing}", file=sys.stderr)
        return 2
    from app.mcp.stdio import serve

    upgrade()  # the schema only: the MCP surface itself never writes
    serve(get_settings())
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


def _import(args: argparse.Namespace) -> int:
    from app.cli.folders import read_inputs
    from app.ingest import IngestError
    from app.services.upload import save as uploads

    upgrade()
    fields = {
        name: None if getattr(args, name) is None else str(getattr(args, name))
        for name in IMPORT_FIELDS
    }
    missing = [str(p) for p in args.files if not (p.is_file() or p.is_dir())]
    if missing:
        print(f"error: no such file or folder: {', '.join(missing)}", file=sys.stderr)
        return 2
    settings = get_settings()
    try:
        files, unread = read_inputs(args.files, settings.max_unpacked_bytes)
    except OSError as exc:
        print(f"error: {exc.filename}: cannot read ({exc.strerror})", file=sys.stderr)
        return 2
    except IngestError as exc:
        print("error: nothing was imported", file=sys.stderr)
        for error in exc.errors:
            print(f"  {error.spelled(option_name)}", file=sys.stderr)
        return 2
    factory = make_sessionmaker(make_engine(settings.database_url))
    session = factory()
    names = ", ".join(str(p) for p in args.files)
    seeded = False
    try:
        seeded = _seed_catalogs(session)
        limits = uploads.limits_for(settings.max_unpacked_bytes)
        stored = uploads.store_checked(
            session,
            files,
            fields,
            limits,
            args.tag,
            unread,
            disaggregated=args.disaggregated,
            keep_apart=args.keep_apart,
        )
        _print_stored(stored)
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
    if seeded:
        print(SEEDED_CATALOGS, file=sys.stderr)
    return 0


def _print_stored(stored: Stored) -> None:
    """What an import stored, found stored already, read and skipped: a line per sweep and
    file (warnings to stderr)."""
    from app.views import uploads as upload_json

    for warning in stored.warnings:
        print(f"warning: {warning}", file=sys.stderr)
    for item in upload_json.saved_json(stored.saved):
        state = "created" if item["created"] else "exists "
        points = fmt_count(item["points"], "point")
        print(f"{state} sweep {item['id']}: {item['name']} ({points})")
    for skipped in stored.skipped:
        if skipped.reason.startswith("read: "):  # read, but every result in it was twice
            print(f"read    {skipped.file}: {skipped.reason.removeprefix('read: ')}")
        else:
            print(f"skipped {skipped.file}: {skipped.reason.removesuffix(': skipped')}")


SEEDED_CATALOGS = "seeded the catalogs: hardware, models, SLO presets, prices, claims"


def _seed_catalogs(session: Session) -> bool:
    """A new database gets the hardware, price and preset catalogs with its first import (as
    `serve` seeds it), so GPU names match and prices exist. In the import's transaction: a
    refused import stores nothing, catalogs included."""
    from app.services.seed import seed_catalogs_if_empty

    return seed_catalogs_if_empty(session)


def _export(args: argparse.Namespace) -> int:
    from app.services import exports
    from app.store.sweeps import NotFound, get_sweeps, sample_counts_by_position

    out_of_range = [i for i in args.sweep_ids if not 1 <= i <= MAX_ID]
    if out_of_range:
        print(f"error: no sweep {out_of_range[0]} (ids run from 1)", file=sys.stderr)
        return 2
    factory = make_sessionmaker(make_engine(get_settings().database_url))
    with session_scope(factory) as session:
        try:
            sweeps = get_sweeps(session, args.sweep_ids)
        except NotFound as exc:
            print(f"error: {exc}", file=sys.stderr)
            return 2
        if args.format == "csv":
            text = exports.sweeps_csv(sweeps)
        else:
            samples = sample_counts_by_position(session, [s.id for s in sweeps])
            text = exports.sweeps_json(sweeps, samples)
    if args.output:
        try:
            args.output.write_text(text, encoding="utf-8")
        except OSError as exc:
            print(f"error: {args.output}: cannot write ({exc.strerror})", file=sys.stderr)
            return 2
    else:
        sys.stdout.write(text)
    return 0


def _db(args: argparse.Namespace) -> int:
    upgrade()
    print("database is at the newest schema")
    return 0


def _seed(args: argparse.Namespace) -> int:
    upgrade()
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
