"""Ingest errors that name the file, the row and the column."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass

MAX_REPORTED = 20  # in the one-line message (`detail`)
MAX_LISTED = 50  # in the list of problems; the rest are counted
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


Kind = tuple[str | None, str | None, str]
# A cell's own value in a message ('x', -1.0, nan, 1e+300): problems differing only in it are
# of one kind.
_VALUE = re.compile(r"'[^']*'|(?<![\w])-?(?:\d[\w.+-]*|nan|inf)", re.IGNORECASE)


def kind_of(column: str | None, message: str) -> Kind:
    return (column, None, _VALUE.sub("#", message))


def _kind(error: RowError) -> Kind:
    return (error.column, error.field, _VALUE.sub("#", error.message))


class Problems(list[RowError]):
    """Problems as they are found, the first MAX_LISTED kept and the rest only counted: a
    file of a million bad rows costs a counter, not a million messages."""

    def __init__(self, found: Iterable[RowError] = ()) -> None:
        super().__init__()
        self.unlisted = 0
        self.same_kind = True  # every unlisted problem is of a kind already listed
        self._kinds: set[Kind] = set()
        self.extend(found)

    def append(self, error: RowError) -> None:
        if self.unlisted and not self.same_kind and not isinstance(error, MoreOf):
            self.unlisted += 1
            return
        if isinstance(error, MoreOf):  # another list's count, gathered into this one
            self.unlisted += error.count
            self.same_kind = self.same_kind and error.same_kind
            return
        if len(self) < MAX_LISTED:
            super().append(error)
            self._kinds.add(_kind(error))
            return
        self.unlisted += 1
        if self.same_kind and _kind(error) not in self._kinds:
            self.same_kind = False

    def count_more(self, kind: Kind, found: int) -> None:
        """`found` problems of `kind` counted, not listed (the rest of a file, as columns)."""
        if found:
            self.unlisted += found
            self.same_kind = self.same_kind and kind in self._kinds

    def extend(self, found: Iterable[RowError]) -> None:
        for error in found:
            self.append(error)

    def __iadd__(self, found: Iterable[RowError]) -> Problems:  # type: ignore[override,misc]
        self.extend(found)
        return self

    def summary(self) -> RowError | None:
        """ "and M more of the same kind" after the listed ones, or None."""
        if not self.unlisted:
            return None
        kind = " of the same kind" if self.same_kind else ""
        file = self[0].file if self else FIELD_SOURCE
        return MoreOf(
            file, f"and {self.unlisted:,} more{kind}", count=self.unlisted, same_kind=self.same_kind
        )


@dataclass(frozen=True)
class MoreOf(RowError):
    """The line after the listed problems: how many more there are."""

    count: int = 0
    same_kind: bool = True


class IngestError(Exception):
    """One or more problems in the uploaded files; nothing was stored. At most MAX_LISTED are
    listed, then one line says how many more there are."""

    def __init__(self, errors: list[RowError]) -> None:
        found = errors if isinstance(errors, Problems) else Problems(errors)
        summary = found.summary()
        self.errors: list[RowError] = [*found, *([summary] if summary else [])]
        total = len(found) + found.unlisted
        shown = "; ".join(str(e) for e in found[:MAX_REPORTED])
        more = total - MAX_REPORTED
        super().__init__(shown + (f"; and {more:,} more" if more > 0 else ""))

    @classmethod
    def one(
        cls, file: str, message: str, row: int | None = None, column: str | None = None
    ) -> IngestError:
        return cls([RowError(file, message, row, column)])
