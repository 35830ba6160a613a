"""`paretoscope import`: result files or folders stored as sweeps, all or nothing (files that
are not results are listed as skipped), with the upload form's fields as options."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from sqlalchemy.exc import SQLAlchemyError
from sqlalchemy.orm import Session, sessionmaker

from app.cli.common import migrated, whole
from app.domain.columns import PROVENANCES
from app.domain.numbers import fmt_count
from app.domain.sweep_fields import IMPORT_OPTIONS
from app.settings import get_settings

if TYPE_CHECKING:  # the services load lazily: `paretoscope --help` stays fast
    from app.services.upload.save import Stored


def import_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
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


def option_name(field: str) -> str:
    """An upload field as `import` spells it: num_gpus is --num-gpus."""
    return "--" + field.replace("_", "-")


def import_sweeps(args: argparse.Namespace) -> int:
    with migrated() as factory:
        return _import(args, factory)


def _import(args: argparse.Namespace, factory: sessionmaker[Session]) -> int:
    from app.cli.folders import read_inputs
    from app.ingest import IngestError
    from app.services.upload import save as uploads

    fields = {
        name: None if getattr(args, name) is None else str(getattr(args, name))
        for name in IMPORT_OPTIONS  # the sweep fields flagged `option`
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
            uploads.UploadOptions(args.disaggregated, args.keep_apart),
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
