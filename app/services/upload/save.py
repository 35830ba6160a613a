"""Upload glue shared by the API, the web form and the CLI: parse, then store all or nothing."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from app.domain.sweep_fields import REQUIRED_META
from app.ingest import (
    IngestError,
    Limits,
    ParsedSweep,
    RowError,
    Skipped,
    UploadFile,
    gpu_hint,
    missing_field,
    parse_upload_files,
)
from app.ingest.errors import FIELD_SOURCE
from app.ingest.grouping import join_named, same_names
from app.ingest.import_warnings import length_warning
from app.ingest.impossible import split_errors
from app.services.catalogs.entries import match_parsed, match_warnings
from app.services.errors import Invalid
from app.services.sweeps.tags import checked_tags
from app.services.upload import already_stored
from app.services.upload.already_stored import StoredAs
from app.services.upload.checks import hardware_unchosen, split_missing, sweep_source
from app.services.upload.fields import parse_defaults
from app.services.upload.names import join_notes, named_apart
from app.store import sweep_save
from app.store import tags as tag_store
from app.store.catalog import HardwareMatch
from app.store.samples import UploadEncodings


@dataclass(frozen=True)
class Details:
    """Sweep details the user gave for an upload, beside what its files say.

    `shared` fills every sweep where its file is silent (the API's form fields, the CLI's
    options). `per_sweep[i]` is sweep i's own: a value given there is stored, whatever the
    file said (the page prefills these from the files). `every` sets a value on every sweep
    (the page's "all sweeps" row). `rest` fills sweeps from index `rest_from` on as their own
    values would (the all-sweeps values a large upload's page applied to the sweeps it lists
    without inputs). Empty values are not given.
    """

    shared: Mapping[str, str | None] = field(default_factory=dict)
    per_sweep: Sequence[Mapping[str, str | None]] = ()
    every: Mapping[str, str | None] = field(default_factory=dict)
    rest: Mapping[str, str | None] = field(default_factory=dict)
    rest_from: int = 0
    # The page's choices. None (the API, the CLI): hardware not in the catalog is kept as typed
    # with a warning, and the same measurements under other details are stored as a new sweep.
    keep_hardware: frozenset[int] | None = None  # sweeps whose unknown hardware is kept as typed
    keep_every_hardware: bool = False
    store_new: frozenset[int] | None = None  # sweeps stored anew instead of updating their twin
    # Sweeps marked as disaggregated serving: their prefill and decode GPUs are required.
    disaggregated: frozenset[int] = frozenset()
    # Every result file a sweep of its own, instead of files of one configuration joined.
    keep_apart: bool = False
    # The page: a sweep whose measurements are stored takes the stored sweep's details where
    # none is typed for it, so a re-upload of a stored folder is unchanged without typing.
    prefill_stored: bool = False


@dataclass
class Detailed:
    """Sweeps with their details applied; the details that were refused (sweep index, or None
    for the all-sweeps row, and field) were left out, each with its error."""

    sweeps: list[ParsedSweep]
    errors: list[RowError] = field(default_factory=list)
    invalid: set[tuple[int | None, str]] = field(default_factory=set)
    skipped: list[Skipped] = field(default_factory=list)  # files that are not result files


def parse_detailed(
    files: list[UploadFile],
    details: Details,
    limits: Limits,
    require_meta: bool,
    session: Session | None = None,
) -> Detailed:
    """Parse, then apply each sweep's own details. A refused value is an error naming the sweep
    and the field; with `require_meta`, so is a sweep still lacking its name, hardware or GPU
    count. Problems in the files themselves raise IngestError."""
    upload = parse_upload_files(
        files,
        parse_defaults(details.shared),
        require_meta=False,
        limits=limits,
        keep_apart=details.keep_apart,
    )
    parsed = upload.sweeps
    out = Detailed(parsed, skipped=upload.skipped)
    every = _typed_details(details.every, FIELD_SOURCE, None, out)
    rest = _typed_details(details.rest, FIELD_SOURCE, None, out) if details.rest else {}
    if session is not None and details.prefill_stored:
        for sweep, found in zip(parsed, already_stored.find(session, parsed), strict=True):
            if found is not None and found.details:  # the stored sweep's details, then typing
                _apply(sweep, {k: v for k, v in found.details.items() if k != "source_tool"})
    for i, sweep in enumerate(parsed):
        given = details.per_sweep[i] if i < len(details.per_sweep) else {}
        own = _typed_details(given, sweep_source(i, sweep), i, out)
        own = {**(rest if i >= details.rest_from else {}), **own, **every}
        if own:
            _apply(sweep, own)
        if require_meta:
            out.errors.extend(
                missing_field(sweep_source(i, sweep), k)
                for k in sweep.missing_meta(required_meta(i, details))
            )
    out.errors.extend(split_errors(parsed))  # the split against the GPU count now in force
    return out


# What a sweep marked disaggregated needs beside the details every sweep needs (REQUIRED_META).
SPLIT_FIELDS = ("num_prefill_gpus", "num_decode_gpus")


def required_meta(index: int, details: Details) -> tuple[str, ...]:
    """What sweep `index` must have before it is stored: its split too when it is marked
    disaggregated and its file does not carry it (issue 37)."""
    return REQUIRED_META + (SPLIT_FIELDS if index in details.disaggregated else ())


def _typed_details(
    given: Mapping[str, str | None], source: str, index: int | None, out: Detailed
) -> dict[str, Any]:
    """The values that pass; each refused one is recorded in `out` and left out."""
    try:
        return parse_defaults(given, source)
    except IngestError as exc:
        out.errors.extend(exc.errors)
        bad = {e.field for e in exc.errors if e.field}
        out.invalid.update((index, name) for name in bad)
        return parse_defaults({k: v for k, v in given.items() if k not in bad}, source)


def _apply(sweep: ParsedSweep, values: Mapping[str, Any]) -> None:
    """Set sweep-level values; the length warning follows the ISL/OSL now in force."""
    before = length_warning(sweep)
    if values.get("num_gpus") is not None:  # the user's count replaces a suggested one
        sweep.warnings[:] = [w for w in sweep.warnings if not gpu_hint.is_hint(w)]
    sweep.meta.update(values)
    after = length_warning(sweep)
    if before != after:
        sweep.warnings[:] = [w for w in sweep.warnings if w != before]
        if after:
            sweep.warnings.append(after)


def limits_for(max_unpacked_bytes: int) -> Limits:
    """Ingest bounds from the settings (PARETOSCOPE_MAX_UNPACKED_MB; 10× the upload cap)."""
    return Limits(max_unpacked_bytes=max_unpacked_bytes)


@dataclass
class Preview:
    """Parsed sweeps, each with what its hardware name matched in the catalog."""

    sweeps: list[ParsedSweep]
    matches: list[HardwareMatch | None]
    warnings: list[str] = field(default_factory=list)
    errors: list[RowError] = field(default_factory=list)  # details that were refused
    invalid: set[tuple[int | None, str]] = field(default_factory=set)
    skipped: list[Skipped] = field(default_factory=list)  # files that are not result files
    stored: list[StoredAs | None] = field(default_factory=list)  # what each sweep already is
    joins: list[str] = field(default_factory=list)  # sweeps named alike, stored as one


@dataclass
class Stored:
    saved: list[sweep_save.SavedSweep]
    # Hardware matched or left as typed, then each sweep's own import warnings.
    warnings: list[str] = field(default_factory=list)
    skipped: list[Skipped] = field(default_factory=list)  # files that are not result files


def preview(
    session: Session,
    files: list[UploadFile],
    fields: Mapping[str, str | None],
    limits: Limits | None = None,
) -> Preview:
    """Parse without requiring sweep name, hardware or GPU count: the preview asks for them."""
    defaults = parse_defaults(fields)
    upload = parse_upload_files(files, defaults, require_meta=False, limits=limits or Limits())
    matches = match_parsed(session, upload.sweeps)
    return Preview(upload.sweeps, matches, match_warnings(matches), skipped=upload.skipped)


def preview_detailed(
    session: Session, files: list[UploadFile], details: Details, limits: Limits
) -> Preview:
    """The preview of staged files with each sweep's own details applied; refused details are
    listed in `errors` and `invalid`, not raised, so the preview still shows every sweep."""
    detailed = parse_detailed(files, details, limits, require_meta=False, session=session)
    matches = match_parsed(session, detailed.sweeps)
    stored = already_stored.find(session, detailed.sweeps)
    apart = named_apart(detailed.sweeps)
    joins = join_notes(detailed.sweeps)
    return Preview(
        detailed.sweeps,
        matches,
        match_warnings(matches),
        [*detailed.errors, *apart],
        detailed.invalid,
        detailed.skipped,
        stored,
        joins,
    )


def store_detailed(
    session: Session,
    files: list[UploadFile],
    details: Details,
    limits: Limits,
    also: Callable[[], object] | None = None,
    tags: list[str] | None = None,
) -> Stored:
    """Store every sweep with its own details and the upload's `tags` (and run `also`) in one
    transaction, or nothing."""
    tag_list = upload_tags(tags or [])
    detailed = parse_detailed(files, details, limits, require_meta=True, session=session)
    matches = match_parsed(session, detailed.sweeps)
    keep = details.keep_hardware
    if keep is not None:  # a sweep stored as it is was kept as typed before: saving keeps it
        found = already_stored.find(session, detailed.sweeps)
        keep = keep | {i for i, f in enumerate(found) if f is not None and f.same}
    unchosen = hardware_unchosen(detailed.sweeps, matches, keep, details.keep_every_hardware)
    errors = [*detailed.errors, *unchosen, *named_apart(detailed.sweeps)]
    if errors:
        raise IngestError(errors)
    if same_names(detailed.sweeps):  # typed alike: one sweep (indexes change: match again)
        detailed.sweeps = join_named(detailed.sweeps)
        matches = match_parsed(session, detailed.sweeps)
    updates = already_stored.updates(session, detailed.sweeps, details.store_new)
    stored = _save(session, detailed.sweeps, also, tag_list, matches, updates)
    stored.skipped = detailed.skipped
    return stored


def store(
    session: Session,
    files: list[UploadFile],
    fields: Mapping[str, str | None],
    limits: Limits | None = None,
    tags: list[str] | None = None,
) -> list[sweep_save.SavedSweep]:
    """Parse every file and store every sweep in one transaction, or nothing at all."""
    return store_checked(session, files, fields, limits, tags).saved


@dataclass(frozen=True)
class UploadOptions:
    """How `store_checked` reads and stores an upload."""

    # Every sweep must have its prefill and decode GPUs (from its file or the fields), or none
    # is stored.
    disaggregated: bool = False
    keep_apart: bool = False  # every result file a sweep of its own (else one configuration joins)
    # Called once the files are parsed, before the sweeps are stored: the API lets go of the
    # upload's bytes there.
    parsed: Callable[[], object] | None = None


def store_checked(
    session: Session,
    files: list[UploadFile],
    fields: Mapping[str, str | None],
    limits: Limits | None = None,
    tags: list[str] | None = None,
    unread: Sequence[str] = (),
    options: UploadOptions | None = None,
) -> Stored:
    """`store`, with the warnings of hardware matching (every upload path goes through here).

    `tags` (form values, comma or space separated) go on every sweep of the upload, existing
    ones included, in the same transaction. `unread`: files skipped by name, unread (a folder's
    side files, as the CLI reads a folder), listed among the skipped ones. `options`: see
    UploadOptions."""
    options = options or UploadOptions()
    tag_list = upload_tags(tags or [])
    defaults = parse_defaults(fields)
    # The sample blocks encode on helper threads from when the samples are attached, while
    # the sweeps are checked and the hardware matched (a refused upload leaves them).
    with UploadEncodings() as encodings:
        upload = parse_upload_files(
            files,
            defaults,
            limits=limits or Limits(),
            unread=unread,
            keep_apart=options.keep_apart,
            attached=encodings.start,
        )
        if options.parsed is not None:
            options.parsed()
        if options.disaggregated and (missing := split_missing(upload.sweeps, SPLIT_FIELDS)):
            raise IngestError(missing)
        if wrong := split_errors(upload.sweeps):
            raise IngestError(wrong)
        stored = _save(session, upload.sweeps, tags=tag_list, encodings=encodings)
    stored.skipped = upload.skipped
    return stored


def _save(
    session: Session,
    parsed: list[ParsedSweep],
    also: Callable[[], object] | None = None,
    tags: list[str] | None = None,
    matches: list[HardwareMatch | None] | None = None,
    updates: Mapping[int, int] | None = None,
    encodings: UploadEncodings | None = None,
) -> Stored:
    """Store and tag the sweeps and run `also` (e.g. drop the staged files) in one transaction;
    `updates` (sweep index: stored sweep id) give stored sweeps these sweeps' details instead;
    `encodings`: their sample blocks, started by the caller."""
    warnings = match_warnings(matches if matches is not None else match_parsed(session, parsed))
    warnings += import_warnings_of(parsed)
    try:
        saved = _commit(session, parsed, also, tags or [], updates or {}, encodings)
    except IntegrityError as exc:
        session.rollback()
        if not sweep_save.is_duplicate_race(exc):
            raise
        # A concurrent upload of the same content won the race: answer with its sweeps (the
        # blocks a sweep took are spent: any still needed are encoded again).
        saved = _commit(session, parsed, also, tags or [], updates or {}, None)
    return Stored(saved, warnings)


def _commit(
    session: Session,
    parsed: list[ParsedSweep],
    also: Callable[[], object] | None,
    tags: list[str],
    updates: Mapping[int, int],
    encodings: UploadEncodings | None,
) -> list[sweep_save.SavedSweep]:
    # Updates first: a sweep of the upload equal to an updated one then finds it stored.
    updated = {
        i: already_stored.update(session, sweep_id, parsed[i]) for i, sweep_id in updates.items()
    }
    kept = [p for i, p in enumerate(parsed) if i not in updates]
    stored = iter(sweep_save.save_parsed(session, kept, encodings))
    saved = [updated[i] if i in updated else next(stored) for i in range(len(parsed))]
    tag_store.add_tags_to_many(session, (s.id for s in saved), tags)
    if also:
        also()
    session.commit()
    return saved


def import_warnings_of(parsed: list[ParsedSweep]) -> list[str]:
    """Each sweep's own import warnings (an old vLLM's empty streams counted as completed, a
    measured length far from the configured one), named by the sweep: every answer that
    stores a file says what its import found, as the preview did."""
    return [
        f"{sweep.meta.get('sweep') or sweep.source_file}: {warning}"
        for sweep in parsed
        for warning in sweep.warnings
    ]


def upload_tags(values: list[str]) -> list[str]:
    """Tags of an upload, refused like any other bad form field (nothing is stored)."""
    try:
        return checked_tags(values, split=True)
    except Invalid as exc:
        raise IngestError([RowError("(form)", exc.message, column="tags")]) from None
