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


class Gone(Exception):
    """Something the request names existed once and no longer does (an expired or saved
    staged upload); shown as 410 so the client knows to start again."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class Busy(Exception):
    """A bounded resource is full for now (the staging area); shown as 503 with Retry-After."""

    def __init__(self, message: str, retry_after_s: int = 60) -> None:
        super().__init__(message)
        self.message = message
        self.retry_after_s = retry_after_s
