"""Errors a service raises for input that fails a check needing the database."""

from __future__ import annotations


class Invalid(Exception):
    """A value the catalogs or stored rows refuse; shown as 422 naming the field."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(f"{field}: {message}")
        self.field = field
        self.message = message
