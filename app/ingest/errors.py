"""Ingest errors that name the file, the row and the column."""

from __future__ import annotations

from dataclasses import dataclass

MAX_REPORTED = 20


@dataclass(frozen=True)
class RowError:
    file: str
    message: str
    row: int | None = None  # line number in the file; the header is row 1
    column: str | None = None

    def __str__(self) -> str:
        where = [self.file]
        if self.row is not None:
            where.append(f"row {self.row}")
        if self.column is not None:
            where.append(f"column {self.column!r}")
        return f"{', '.join(where)}: {self.message}"

    def as_dict(self) -> dict[str, object]:
        return {"file": self.file, "row": self.row, "column": self.column, "message": self.message}


class IngestError(Exception):
    """One or more problems in the uploaded files; nothing was stored."""

    def __init__(self, errors: list[RowError]) -> None:
        self.errors = errors
        shown = "; ".join(str(e) for e in errors[:MAX_REPORTED])
        more = len(errors) - MAX_REPORTED
        super().__init__(shown + (f"; and {more} more" if more > 0 else ""))

    @classmethod
    def one(
        cls, file: str, message: str, row: int | None = None, column: str | None = None
    ) -> IngestError:
        return cls([RowError(file, message, row, column)])
