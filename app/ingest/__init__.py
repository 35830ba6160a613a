"""Upload pipeline: bytes of one or more files → validated sweeps, chosen by content, not name.

Canonical CSV (points and per-request samples) is handled here; every benchmark tool's native
format has an importer in `app.ingest.tools`, found by `registry.importers()`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

from app.domain.columns import TPOT_COLUMN_NAMES
from app.domain.sweep_fields import REQUIRED_META
from app.ingest import canonical_rows
from app.ingest.canonical_requests import RequestGroup, attach_requests
from app.ingest.errors import FIELD_MARK, IngestError, Problems, RowError
from app.ingest.gpu_hint import COMMANDS_SUFFIX, GpuHint, command_hints, suggest
from app.ingest.grouping import (
    READ_TWICE,
    drop_read_twice,
    join_sweeps,
    name_sweeps,
    natural_key,
    read_twice,
    sweep_files,
    tell_apart,
)
from app.ingest.import_warnings import NO_TPOT_WARNING, drop_warnings_from_notes, import_warnings
from app.ingest.impossible import check_impossible
from app.ingest.limits import DEFAULT_LIMITS, Limits, check_sweeps
from app.ingest.parsed import ParsedPoint, ParsedSweep
from app.ingest.recognise import TELEMETRY_REFUSAL, Found, ReadAhead, sort_file
from app.ingest.recognise import unrecognised as not_a_result
from app.ingest.skipped import (
    Skipped,
    listed,
    nothing_to_import,
    skip_reason,
    unread_reason,
    unread_refusal,
)
from app.ingest.source import SourceFile, expand, is_side_file
from app.ingest.text import decode_text

if TYPE_CHECKING:
    from app.ingest.registry import Importer

__all__ = [
    "READ_TWICE",
    "TELEMETRY_REFUSAL",
    "IngestError",
    "NO_TPOT_WARNING",
    "Limits",
    "decode_text",
    "ParsedSweep",
    "ParsedUpload",
    "RowError",
    "Skipped",
    "UploadFile",
    "parse_upload",
    "parse_upload_files",
]

# What a required field is, in words: messages name the field itself the way each surface does.
MISSING_WORDS = {"sweep": "the sweep name", "hardware": "the hardware", "num_gpus": "how many GPUs"}
MISSING_WORDS |= {"num_prefill_gpus": "its prefill GPUs", "num_decode_gpus": "its decode GPUs"}


@dataclass(frozen=True)
class UploadFile:
    name: str
    data: bytes


@dataclass
class ParsedUpload:
    """The sweeps of an upload, and the files skipped as not result files (with why)."""

    sweeps: list[ParsedSweep]
    skipped: list[Skipped] = field(default_factory=list)


def parse_upload(
    files: list[UploadFile],
    defaults: Mapping[str, Any],
    require_meta: bool = True,
    limits: Limits = DEFAULT_LIMITS,
) -> list[ParsedSweep]:
    """The sweeps of `parse_upload_files` (callers that do not list skipped files)."""
    return parse_upload_files(files, defaults, require_meta, limits).sweeps


def parse_upload_files(
    files: list[UploadFile],
    defaults: Mapping[str, Any],
    require_meta: bool = True,
    limits: Limits = DEFAULT_LIMITS,
    unread: Sequence[str] = (),
    keep_apart: bool = False,
    attached: Callable[[list[ParsedSweep]], object] | None = None,
) -> ParsedUpload:
    """Parse every result file; per-request files attach to the points of sweeps in the same
    upload. A file no importer recognises (a README, a log, a plot, a `.commands` file) is
    skipped and listed with why; only an upload without any result file is refused. A result
    file that is broken refuses the whole upload (all or nothing), naming file, row and field.

    With `require_meta=False` (the preview) a missing sweep name, hardware or GPU count is left
    for the user to fill instead of being an error. `limits` bound what archives may unpack to
    (shared by all files of the upload) and what each point may keep. `unread` names files the
    caller skipped by their name without reading them (a folder's logs, images, hidden files:
    see `source.is_side_file`); they are listed like an archive's members skipped by name.

    `attached` is told the sweeps once their per-request samples are attached, before they are
    checked (the store starts encoding them then).

    Files of one configuration at different loads join one sweep (`grouping`); with
    `keep_apart` every result file is a sweep of its own (or several, as its importer reads
    it). Files are read in the order of their names, so the sweeps, their names and their
    content hashes do not depend on the order the files came in.
    """
    if not files and not unread:
        raise IngestError.one("(upload)", "no file was uploaded")
    from app.ingest.registry import importers

    errors: list[RowError] = Problems()
    unread = list(unread)
    sources = _expanded(files, limits, unread, errors)
    sources.sort(key=lambda s: natural_key(s.name))  # the order files came in decides nothing
    tools = importers()
    found = Found()
    with ReadAhead(sources, tools) as ahead:
        for source in sources:
            try:
                sort_file(source, tools, found, defaults, require_meta, ahead)
            except IngestError as exc:
                errors.extend(exc.errors)
    sweeps, requests, claimed = found.sweeps, found.requests, found.claimed
    unrecognised, results = found.unrecognised, found.results
    if not results and not errors:
        refusals = [why or not_a_result(source, tools) for source, why in unrecognised]
        refusals.extend(RowError(name, unread_refusal(name)) for name in unread)
        raise IngestError(nothing_to_import(refusals))
    hints = _command_hints(s for s, _ in unrecognised)
    read_again: list[Skipped] = []
    named: list[ParsedSweep] = []
    for index, group in claimed.items():
        try:
            finished = _tool_sweeps(tools[index], group, defaults, keep_apart, read_again)
            named.extend(_finish(finished, defaults, require_meta, hints))
        except IngestError as exc:
            errors.extend(exc.errors)
    sweeps.extend(named)
    if errors:
        raise IngestError(errors)
    tell_apart(named)
    _attached(sweeps, requests, files)
    if attached is not None:
        attached(sweeps)
    _checked(sweeps, limits)
    skipped = [Skipped(s.name, skip_reason(s.data)) for s, _ in unrecognised]
    skipped.extend(Skipped(name, unread_reason(name)) for name in unread)
    return ParsedUpload(sweeps, listed([*read_again, *skipped]))


def _attached(
    sweeps: list[ParsedSweep],
    requests: list[tuple[str, list[RequestGroup]]],
    files: list[UploadFile],
) -> None:
    """Per-request files attached to their sweeps' points; refused when one has no sweep."""
    errors: list[RowError] = Problems()
    for name, groups in requests:
        attach_requests(name, groups, sweeps, errors)
    if errors:
        raise IngestError(errors)
    if not sweeps:
        raise IngestError.one(
            ", ".join(f.name for f in files),
            "per-request samples need their sweep's points file in the same upload",
        )


def _checked(sweeps: list[ParsedSweep], limits: Limits) -> None:
    """The checks every sweep gets (bounds, impossible values), then its import warnings."""
    check_sweeps(sweeps, limits)
    check_impossible(sweeps)
    for sweep in sweeps:
        sweep.warnings.extend(w for w in import_warnings(sweep) if w not in sweep.warnings)
        drop_warnings_from_notes(sweep)


def _tool_sweeps(
    tool: Importer,
    group: list[SourceFile],
    defaults: Mapping[str, Any],
    keep_apart: bool,
    read_again: list[Skipped],
) -> list[ParsedSweep]:
    """One tool's files as sweeps: joined by configuration, or each file apart; files whose
    runs another file repeats (a summary of its run files) are added to `read_again`."""
    if keep_apart:
        parsed, twice = drop_read_twice([s for f in group for s in tool.parse([f], defaults)])
        read_again.extend(twice)
        return parsed
    parsed = join_sweeps(tool.parse(group, defaults))
    if getattr(tool, "repeats_runs", False):
        read_again.extend(read_twice(group, parsed))
    return parsed


def _expanded(
    files: list[UploadFile], limits: Limits, unread: list[str], errors: list[RowError]
) -> list[SourceFile]:
    """The upload's files with archives unpacked (their members under one unpacked-size
    budget); side files are added to `unread`, an archive's refusal to `errors`."""
    sources: list[SourceFile] = []
    unpacked = 0
    for upload in files:
        if is_side_file(upload.name):  # a log, README or plot of a folder: never read
            unread.append(upload.name)
            continue
        left = replace(limits, max_unpacked_bytes=limits.max_unpacked_bytes - unpacked)
        try:
            expanded = expand(upload.name, upload.data, left, unread)
        except IngestError as exc:
            errors.extend(exc.errors)
            continue
        if len(expanded) != 1 or expanded[0].data is not upload.data:
            unpacked += sum(len(s.data) for s in expanded)
        sources.extend(expanded)
    return sources


def missing_field(file: str, key: str) -> RowError:
    """A required sweep field neither the file nor the user gave."""
    words = MISSING_WORDS.get(key, key)
    return RowError(file, f"the file does not say {words}; give {FIELD_MARK}", field=key)


def _command_hints(sources: Any) -> dict[str, GpuHint]:
    """GPU counts the serve commands of the upload's `.commands` files give, per folder."""
    texts: list[tuple[str, str]] = []
    for source in sources:
        if source.name.lower().endswith(COMMANDS_SUFFIX):
            try:
                texts.append((source.name, source.text))
            except IngestError:  # not UTF-8: skipped like any other side file
                continue
    return command_hints(texts)


def _finish(
    sweeps: list[ParsedSweep],
    defaults: Mapping[str, Any],
    require_meta: bool,
    hints: dict[str, GpuHint] | None = None,
) -> list[ParsedSweep]:
    """Fill what importers left open from the form (then a GPU count the folder suggests:
    see `gpu_hint`), then apply the checks canonical CSV gets."""
    errors: list[RowError] = Problems()
    given = defaults.get("sweep")
    name_sweeps(sweeps, str(given) if given else None)
    for sweep in sweeps:
        sweep.files = sweep_files(sweep)
        _fill(sweep, defaults, hints or {})
        missing = sweep.missing_meta(REQUIRED_META) if require_meta else []
        for key in missing:
            errors.append(missing_field(sweep.source_file, key))
        errors.extend(_point_errors(sweep))
        no_tpot = not any(
            p.values.get(c) is not None for p in sweep.points for c in TPOT_COLUMN_NAMES
        )
        if no_tpot and not any(w.startswith(NO_TPOT_WARNING) for w in sweep.warnings):
            # A tool that measured no per-request TPOT still gives TTFT, E2EL and throughput;
            # its pooled ITL never stands in for TPOT, so the sweep simply has no x axis.
            # (An importer may have said so already, with how to get a TPOT.)
            sweep.warnings.append(NO_TPOT_WARNING)
    if errors:
        raise IngestError(errors)
    return sweeps


def _fill(sweep: ParsedSweep, defaults: Mapping[str, Any], hints: dict[str, GpuHint]) -> None:
    """What the file left open, from the form, then the GPU count the folder suggests."""
    for key, value in defaults.items():
        if sweep.meta.get(key) in (None, ""):
            sweep.meta[key] = value
    hint = suggest(sweep, hints) if sweep.meta.get("num_gpus") is None else None
    if hint is not None:
        sweep.meta["num_gpus"] = hint.num_gpus
        sweep.warnings.append(hint.warning())


def _point_errors(sweep: ParsedSweep) -> list[RowError]:
    """Points without output throughput, and the canonical checks' errors named by load."""
    errors = [
        RowError(
            sweep.source_file,
            f"point {_load(point)}: the file gives no output token throughput",
            point.row,
            "output_tok_s",
        )
        for point in sweep.points
        if point.values.get("output_tok_s") is None
    ]
    rows = [{**sweep.meta, **p.values} for p in sweep.points]
    point_errors: list[RowError] = Problems()
    canonical_rows.check_values(sweep.source_file, rows, point_errors)
    # Canonical row numbers mean nothing here: name the point by its load instead.
    for e in point_errors:
        point = sweep.points[(e.row or 2) - 2]
        errors.append(RowError(e.file, f"point {_load(point)}: {e.message}", point.row, e.column))
    return errors


def _load(point: ParsedPoint) -> str:
    if point.values.get("concurrency") is not None:
        return f"at concurrency {point.values['concurrency']:g}"
    return f"at rate {point.values.get('request_rate')}"
