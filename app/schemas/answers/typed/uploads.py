"""The TypedDicts of app.schemas.answers.uploads: written by tools/answer_types.py."""

from __future__ import annotations

from typing import TYPE_CHECKING, TypedDict

if TYPE_CHECKING:
    from app.schemas.answers.typed.catalog import HardwareMatchDict


class SavedSweepDict(TypedDict):
    """app.schemas.answers.uploads.SavedSweep"""

    id: int
    name: str
    points: int
    created: bool
    updated: bool


class SkippedFileDict(TypedDict):
    """app.schemas.answers.uploads.SkippedFile"""

    file: str
    reason: str


class UploadSavedDict(TypedDict):
    """app.schemas.answers.uploads.UploadSaved"""

    sweeps: list[SavedSweepDict]
    warnings: list[str]
    skipped: list[SkippedFileDict]


class UploadConfirmedDict(UploadSavedDict):
    """app.schemas.answers.uploads.UploadConfirmed"""

    explore_url: str


class StagedSweepDetailsDict(TypedDict):
    """app.schemas.answers.uploads.StagedSweepDetails"""

    sweep: str | None
    hardware: str | None
    num_gpus: int | None
    model: str | None
    engine: str | None
    engine_version: str | None
    precision: str | None
    spec_decode: str | None
    draft_model: str | None
    num_spec_tokens: int | None
    isl: int | None
    osl: int | None
    workload: str | None
    scenario: str | None
    trace_dataset: str | None
    num_prefill_gpus: int | None
    num_decode_gpus: int | None
    config: str | None
    source_kind: str | None
    source_tool: str | None
    harness: str | None
    harness_version: str | None
    provenance: str | None
    notes: str | None
    measured_at: str | None
    run_id: str | None
    run_url: str | None
    image: str | None


class AlreadyStoredDict(TypedDict):
    """app.schemas.answers.uploads.AlreadyStored"""

    id: int
    same_details: bool


class StagedSweepDict(TypedDict):
    """app.schemas.answers.uploads.StagedSweep"""

    index: int
    name: str
    source_file: str | None
    source_format: str
    points: int
    request_samples: int
    details: StagedSweepDetailsDict
    missing: list[str]
    warnings: list[str]
    hardware_match: HardwareMatchDict | None
    already_stored: AlreadyStoredDict | None


class StagedPreviewDict(TypedDict):
    """app.schemas.answers.uploads.StagedPreview"""

    staging: str
    expires_at: str
    keep_apart: bool
    sweeps: list[StagedSweepDict]
    warnings: list[str]
    skipped: list[SkippedFileDict]
