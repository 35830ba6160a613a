"""Files of an upload that are not result files: skipped with their reason, never parsed.

Benchmark folders hold side files beside their results (the command line, logs, a README,
plots, a summary of no known format). Such a file is listed as skipped with why; the upload is
refused only when no file at all is a result file. Deciding costs a look at the first bytes:
a side file is never parsed (no JSON or YAML load) to tell that it is one.
"""

from __future__ import annotations

from dataclasses import dataclass

from app.ingest.errors import MAX_LISTED, MoreOf, RowError
from app.ingest.near_miss import near_miss
from app.ingest.text import SNIFF_BYTES

SKIPPED = "not a result file: skipped"
# When no file is a result file: why a file skipped by its name was never read.
UNREAD = "not a result file (logs, text, Markdown, images, HTML and hidden files are not read)"
# Listing every member of an archive of 10,000 plots would bury the answer: the first ones are
# named, the rest counted in one last entry.
MAX_SKIPPED_LISTED = 100


@dataclass(frozen=True)
class Skipped:
    """A file of the upload that was not imported, and why (`file` as the upload names it)."""

    file: str
    reason: str

    def __str__(self) -> str:
        return f"{self.file}: {self.reason}"


# Archives inside an archive are not opened (the bounds hold for one level).
NESTED = "an archive inside an archive is not opened; upload it on its own"
_ARCHIVE_MAGIC = (b"PK\x03\x04", b"\x1f\x8b", b"BZh", b"\xfd7zXZ\x00")


def is_archive(data: bytes) -> bool:
    return data.startswith(_ARCHIVE_MAGIC)


def skip_reason(data: bytes) -> str:
    """Why a file no importer recognised is skipped, from its first bytes only."""
    head = data[:SNIFF_BYTES]
    if not head.strip():
        return "not a result file (empty): skipped"
    if is_archive(head):
        return "not a result file (an archive inside an archive is not opened): skipped"
    if b"\x00" in head or not _utf8_head(head):
        return "not a result file (binary): skipped"
    near = near_miss(data)
    return SKIPPED if near is None else f"not a result file ({near}): skipped"


# How a folder's link to a file outside the folder is listed: never followed (a link to
# ../outside/private.csv would import a file the user did not hand over).
OUTSIDE_LINK = " (a link out of the folder)"
OUTSIDE_LINK_REASON = "a link to a file outside the folder, not followed: skipped"


def unread_refusal(member: str) -> str:
    """Why a file skipped by its name was never read, when no file is a result file."""
    return OUTSIDE_LINK_REASON if member.endswith(OUTSIDE_LINK) else UNREAD


def unread_reason(member: str) -> str:
    """Why an archive member (or a folder's file; a folder's own name ends in "/") was skipped
    by its name, unread."""
    if member.endswith(OUTSIDE_LINK):
        return OUTSIDE_LINK_REASON
    base = member.rstrip("/").rsplit("/", 1)[-1]
    if "__MACOSX" in member or base == ".DS_Store":
        return "not a result file (macOS metadata): skipped"
    if base.startswith("."):
        kind = "folder" if member.endswith("/") else "file"
        return f"not a result file (hidden {kind}): skipped"
    return SKIPPED


def listed(skipped: list[Skipped]) -> list[Skipped]:
    """The first MAX_SKIPPED_LISTED, then one entry counting the rest."""
    if len(skipped) <= MAX_SKIPPED_LISTED:
        return skipped
    more = len(skipped) - MAX_SKIPPED_LISTED
    return [
        *skipped[:MAX_SKIPPED_LISTED],
        Skipped(f"({more:,} more files)", "not result files: skipped"),
    ]


def nothing_to_import(refusals: list[RowError]) -> list[RowError]:
    """The refusal when no file is a result file: it says so, then each file and why."""
    if len(refusals) <= 1:
        return refusals
    lead = RowError(
        "(upload)",
        f"none of these {len(refusals):,} files is a result file; nothing was stored",
    )
    # A refusal lists at most MAX_LISTED problems, the lead among them; the rest are counted
    # (as files, so the count is the files not named, not the lines cut).
    shown = MAX_LISTED - 1
    more = len(refusals) - shown
    if more > 0:
        rest = MoreOf("(upload)", f"and {more:,} more files, not result files either", count=more)
        return [lead, *refusals[:shown], rest]
    return [lead, *refusals]


def _utf8_head(head: bytes) -> bool:
    try:
        head.decode("utf-8")
    except UnicodeDecodeError as exc:
        # A multi-byte character cut at the end of the head is still text.
        return exc.start >= len(head) - 3 and exc.reason == "unexpected end of data"
    return True
