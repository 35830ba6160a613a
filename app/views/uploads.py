"""The JSON answers of an upload (API, page and CLI alike): what was saved, what a staged upload
previews, the files skipped, and the Explore link for the sweeps."""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from typing import Any, cast
from urllib.parse import urlencode

from app.domain.columns import SWEEP_COLUMN_NAMES
from app.domain.sweep_fields import REQUIRED_META
from app.ingest import Skipped
from app.schemas.answers.typed.uploads import (
    AlreadyStoredDict,
    SavedSweepDict,
    SkippedFileDict,
    StagedPreviewDict,
    StagedSweepDetailsDict,
    StagedSweepDict,
)
from app.services.upload.already_stored import StoredAs
from app.services.upload.save import SPLIT_FIELDS, Preview
from app.services.upload.staging import Staged
from app.store import sweep_save


def saved_json(saved: list[sweep_save.SavedSweep]) -> list[SavedSweepDict]:
    return [
        {"id": s.id, "name": s.name, "points": s.points, "created": s.created, "updated": s.updated}
        for s in saved
    ]


def explore_url(sweep_ids: Sequence[int], cap: int | None = None) -> str:
    """Explore with these sweeps selected (the first `cap` of them when capped)."""
    ids = list(dict.fromkeys(sweep_ids))[:cap]
    return "/?" + urlencode([*(("sweep", i) for i in ids), ("picked", "1")])


def preview_json(
    result: Preview,
    staged: Staged,
    marked: frozenset[int] = frozenset(),
) -> StagedPreviewDict:
    """A staged upload's preview: each sweep's details as the files (and the details given)
    make them, what is still missing (the split too of a sweep `marked` disaggregated),
    warnings and the hardware match; whether the files were staged to be kept apart."""
    sweeps: list[StagedSweepDict] = []
    for i, sweep in enumerate(result.sweeps):
        match = result.matches[i] if i < len(result.matches) else None
        sweeps.append(
            {
                "index": i,
                "name": sweep.name,
                "source_file": sweep.source_file,
                "source_format": sweep.source_format,
                "points": sweep.point_count,
                "request_samples": sweep.sample_count,
                # Keyed by the sweep's columns (app.domain.sweep_fields), as the model lists them.
                "details": cast(
                    StagedSweepDetailsDict,
                    {k: _json_meta(sweep.meta.get(k)) for k in SWEEP_COLUMN_NAMES},
                ),
                "missing": sweep.missing_meta(REQUIRED_META + (SPLIT_FIELDS * (i in marked))),
                "warnings": list(sweep.warnings),
                "hardware_match": match.as_dict() if match else None,
                "already_stored": _stored_json(result.stored[i] if result.stored else None),
            }
        )
    expires = dt.datetime.fromtimestamp(staged.expires_at_s, dt.UTC).isoformat()
    return {
        "staging": staged.token,
        "expires_at": expires,
        "keep_apart": staged.keep_apart,
        "sweeps": sweeps,
        "warnings": result.warnings,
        "skipped": skipped_json(result.skipped),
    }


def skipped_json(skipped: Sequence[Skipped]) -> list[SkippedFileDict]:
    """Files of the upload that are not result files, each with why it was skipped."""
    return [{"file": s.file, "reason": s.reason} for s in skipped]


def _stored_json(found: StoredAs | None) -> AlreadyStoredDict | None:
    return {"id": found.sweep_id, "same_details": found.same} if found else None


def _json_meta(value: Any) -> Any:
    return value.isoformat() if isinstance(value, dt.date) else value
