"""Stage an upload once, preview it as often as details change, then save it from the staged copy.

The files go up once: field edits send only the details and the staging token, and "Save"
stores what was staged, so what the preview showed is what is stored. Staged files live in the
database (any worker or replica can finish an upload another one staged), expire, and are
bounded in total; the token is a random 256-bit secret handed only to whoever staged the files.
"""

from __future__ import annotations

import re
import secrets
import time
from dataclasses import dataclass, replace

from sqlalchemy.orm import Session

from app.ingest import Limits, UploadFile
from app.services.errors import Busy, Gone
from app.services.upload import save as uploads
from app.store import staging as store

TOKEN_PATTERN = re.compile(r"[A-Za-z0-9_-]{16,64}")
EXPIRED = (
    "These staged files have expired or were already saved; choose the files again to upload them."
)


@dataclass(frozen=True)
class Staged:
    token: str
    expires_at_s: int
    files: list[UploadFile]
    keep_apart: bool = False  # every result file a sweep of its own, as chosen when staged


def stage(
    session: Session,
    files: list[UploadFile],
    ttl_s: int,
    max_staged_bytes: int,
    keep_apart: bool = False,
) -> Staged:
    """Keep the files under a new token (expired ones are dropped first); refused with Busy
    when the staging area would hold more than `max_staged_bytes`. With `keep_apart` their
    previews and their save make every result file a sweep of its own."""
    now = int(time.time())
    store.purge_expired(session, now)
    size = sum(len(f.data) for f in files)
    if store.staged_bytes(session) + size > max_staged_bytes:
        raise Busy(
            "The staging area for uploads is full "
            f"({max_staged_bytes / 1048576:g} MB, PARETOSCOPE_MAX_STAGED_MB); "
            "try again when other uploads have been saved or expired.",
            retry_after_s=60,
        )
    token = secrets.token_urlsafe(32)
    store.add(session, token, files, now, ttl_s, keep_apart)
    return Staged(token, now + ttl_s, files, keep_apart)


def load(session: Session, token: str) -> Staged:
    """The staged files of a token; Gone when the token is unknown, expired or saved."""
    found = store.get(session, token, int(time.time())) if TOKEN_PATTERN.fullmatch(token) else None
    if found is None:
        raise Gone(EXPIRED)
    files, expires, keep_apart = found
    return Staged(token, expires, files, keep_apart)


def preview(
    session: Session, token: str, details: uploads.Details, limits: Limits
) -> tuple[Staged, uploads.Preview]:
    staged = load(session, token)
    details = _grouped(staged, details)
    return staged, uploads.preview_detailed(session, staged.files, details, limits)


def confirm(
    session: Session,
    token: str,
    details: uploads.Details,
    limits: Limits,
    tags: list[str] | None = None,
) -> uploads.Stored:
    """Store the staged files' sweeps with their details (and `tags` on each) and drop the
    staged copy, in one transaction: a refusal stores nothing and keeps the files staged."""
    staged = load(session, token)
    return uploads.store_detailed(
        session,
        staged.files,
        _grouped(staged, details),
        limits,
        lambda: store.remove(session, token),
        tags,
    )


def _grouped(staged: Staged, details: uploads.Details) -> uploads.Details:
    """Files staged to be kept apart stay apart (the page stages them joined and says how to
    group them with each preview)."""
    return replace(details, keep_apart=True) if staged.keep_apart else details


def discard(session: Session, token: str) -> None:
    if TOKEN_PATTERN.fullmatch(token):
        store.remove(session, token)
