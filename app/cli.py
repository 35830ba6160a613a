"""The `paretoscope` command: serve, import, export, db upgrade, seed."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from sqlalchemy.exc import SQLAlchemyError

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
    imp.add_argument("--hardware", help="GPU key, e.g. H100 (when the files do not say)")
    imp.add_argument("--gpus", type=_whole, help="all GPUs of the deployment")
    imp.add_argument("--model")
    imp.add_argument("--name", help="sweep name (when the files do not say)")
    imp.add_argument("--engine")
    imp.add_argument("--precision")
    imp.add_argument("--isl", type=_whole)
    imp.add_argument("--osl", type=_whole)

    exp = sub.add_parser("export", help="write sweeps as canonical CSV or JSON")
    exp.add_argument("sweep_ids", nargs="+", type=_whole)
    exp.add_argument("--format", choices=("csv", "json"), default="csv")
    exp.add_argument("-o", "--output", type=Path, help="file to write (default: stdout)")

    db = sub.add_parser("db", help="database commands")
    db_sub = db.add_subparsers(dest="db_command", required=True)
    db_sub.add_parser("upgrade", help="migrate the database to the newest schema")

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
        "db": _db,
        "seed": _seed,
    }[args.command]
    return handler(args)


def _whole(text: str) -> int:
    """An integer option; a 5,000-digit one is refused without echoing it (int() would raise
    an unhelpful ValueError past 4,300 digits)."""
    if len(text.strip()) > 20:
        raise argparse.ArgumentTypeError(f"{text[:20]}… is not a whole number of sensible size")
    try:
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None


def _serve(args: argparse.Namespace) -> int:
    import uvicorn

    settings = get_settings()
    _upgrade()
    _seed_database(if_empty=settings.seed_on_start, only_if_enabled=True)
    host = args.host or settings.host
    port = args.port or settings.port
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


def _upgrade() -> None:
    from app.store.migrate import upgrade_to_head

    upgrade_to_head(get_settings().database_url)


def _import(args: argparse.Namespace) -> int:
    from app.ingest import IngestError, UploadFile
    from app.services import uploads

    _upgrade()
    fields = {
        "hardware": args.hardware,
        "num_gpus": None if args.gpus is None else str(args.gpus),
        "model": args.model,
        "sweep": args.name,
        "engine": args.engine,
        "precision": args.precision,
        "isl": None if args.isl is None else str(args.isl),
        "osl": None if args.osl is None else str(args.osl),
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
        saved = uploads.store(session, files, fields, limits)
        for item in uploads.saved_json(saved, session):
            state = "created" if item["created"] else "exists "
            print(f"{state} sweep {item['id']}: {item['name']} ({item['points']} points)")
    except IngestError as exc:
        session.rollback()
        print("error: nothing was imported", file=sys.stderr)
        for error in exc.errors:
            print(f"  {error}", file=sys.stderr)
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
