"""Errors a service raises for input that fails a check needing the database."""

from __future__ import annotations


class Invalid(Exception):
    """A value the catalogs or stored rows refuse; shown as 422 naming the field."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(f"{field}: {message}")
        self.field = field
        self.message = message


class Conflict(Exception):
    """A write the stored rows forbid, e.g. deleting a GPU sweeps still use; shown as 409."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message
