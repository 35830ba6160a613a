"""What an upload answers: the sweeps saved, a staged upload's preview, the files skipped."""

from __future__ import annotations

from app.schemas.answers.catalog import HardwareMatch
from app.schemas.answers.common import Answer, sweep_field_types


class SavedSweep(Answer):
    """`created` false: identical content was stored before (this is that sweep)."""

    id: int
    name: str
    points: int
    created: bool
    updated: bool


class SkippedFile(Answer):
    """A file of the upload that is not a result file, with why."""

    file: str
    reason: str


class UploadSaved(Answer):
    sweeps: list[SavedSweep]
    warnings: list[str]
    skipped: list[SkippedFile]


class UploadConfirmed(UploadSaved):
    explore_url: str


class StagedSweepDetails(Answer):
    """A staged sweep's details as its files (and the details given) make them."""

    # Its keys and types from the sweep fields' one definition (app.domain.sweep_fields).
    __annotations__ = sweep_field_types(stored=False)


class AlreadyStored(Answer):
    id: int
    same_details: bool


class StagedSweep(Answer):
    index: int
    name: str
    source_file: str | None
    source_format: str
    points: int
    request_samples: int
    details: StagedSweepDetails
    missing: list[str]
    warnings: list[str]
    hardware_match: HardwareMatch | None
    already_stored: AlreadyStored | None


class StagedPreview(Answer):
    """`staging` is the token to preview again, save or discard with, until `expires_at`;
    `keep_apart` says whether every result file is a sweep of its own (as chosen at staging)."""

    staging: str
    expires_at: str
    keep_apart: bool
    sweeps: list[StagedSweep]
    warnings: list[str]
    skipped: list[SkippedFile]
