"""Ingest errors that name the file, the row and the column."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

MAX_REPORTED = 20
# Where a field value the user typed (form field, API field, CLI option) is named as the file.
FIELD_SOURCE = "(form)"
# In a message, where the upload field that would fix the problem is named; each surface spells
# it its own way (`num_gpus` in the API, `--num-gpus` on the command line, "GPUs" on the page).
FIELD_MARK = "{field}"


def api_spelling(name: str) -> str:
    return name


@dataclass(frozen=True)
class RowError:
    file: str
    message: str
    row: int | None = None  # line number in the file; the header is row 1
    column: str | None = None
    field: str | None = None  # the upload field (API name) that would fix it

    def __str__(self) -> str:
        return self.spelled(api_spelling)

    @property
    def text(self) -> str:
        """The message with its field named as the API names it."""
        return self._message(api_spelling)

    def spelled(self, spell: Callable[[str], str]) -> str:
        """The error as a surface shows it, `spell` naming the upload field (e.g. `--num-gpus`).

        A value the user typed is named by its field alone ("--num-gpus: must be greater than
        0"); a problem in a file names the file, row and column.
        """
        message = self._message(spell)
        if self.field is not None and FIELD_MARK not in self.message:  # a value the user typed
            where = [] if self.file == FIELD_SOURCE else [self.file]
            return f"{', '.join([*where, spell(self.field)])}: {message}"
        where = [self.file]
        if self.row is not None:
            where.append(f"row {self.row}")
        if self.column is not None:
            where.append(f"column {self.column!r}")
        return f"{', '.join(where)}: {message}"

    def _message(self, spell: Callable[[str], str]) -> str:
        if self.field is None:
            return self.message
        return self.message.replace(FIELD_MARK, spell(self.field))

    def as_dict(self) -> dict[str, object]:
        data: dict[str, object] = {"file": self.file, "row": self.row, "column": self.column}
        if self.field is not None:
            data["field"] = self.field
        data["message"] = self.text
        return data


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
