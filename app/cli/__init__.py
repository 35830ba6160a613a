"""The `paretoscope` command: serve, mcp, import, export, plan, readoff, check, production, db
upgrade, seed."""

from __future__ import annotations

import argparse
import ipaddress
import os
import sys
from pathlib import Path

from sqlalchemy.exc import SQLAlchemyError

from app.cli.analysis import check, check_parser, plan, plan_parser, readoff, readoff_options
from app.cli.common import MAX_ID, upgrade, whole
from app.cli.importing import import_parser, import_sweeps
from app.cli.production import production, production_parser
from app.mcp import SdkMissing, require_sdk
from app.settings import get_settings
from app.store.db import make_engine, make_sessionmaker, session_scope


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="paretoscope", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)

    _serve_parsers(sub)
    import_parser(sub)

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
        "import": import_sweeps,
        "export": _export,
        "plan": plan,
        "readoff": readoff,
        "check": check,
        "production": production,
        "db": _db,
        "seed": _seed,
    }[args.command]

    try:
        return handler(args)
    except SQLAlchemyError as exc:
        # Whatever a command did not catch itself: the reason in one line, never a traceback.
        reason = str(getattr(exc, "orig", None) or exc).strip().splitlines()
        print(f"error: database: {reason[0] if reason else type(exc).__name__}", file=sys.stderr)
        return 2


def _serve_parsers(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """`serve` (the dashboard) and `mcp` (the MCP server over stdio)."""
    serve = sub.add_parser("serve", help="migrate, seed an empty database, and serve the dashboard")
    serve.add_argument("--host", default=None, help="default: PARETOSCOPE_HOST or 127.0.0.1")
    serve.add_argument("--port", type=int, default=None, help="default: PARETOSCOPE_PORT or 8000")
    serve.add_argument("--workers", type=int, default=1)
    serve.add_argument("--reload", action="store_true", help="restart on code changes")
    sub.add_parser(
        "mcp",
        help="serve the read-only MCP server over stdio (for an assistant's client to start)",
    )


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
