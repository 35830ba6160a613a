"""Request-scoped dependencies: the session, settings, the write-token check, htmx detection,
the form and uploaded files read before a plain `def` route runs, and bounded ids."""

from __future__ import annotations

import hmac
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass
from typing import Annotated, Any

import anyio
from fastapi import Depends, Header, Path, Request
from sqlalchemy.orm import Session
from starlette.datastructures import FormData
from starlette.datastructures import UploadFile as StarletteUpload

from app.http.errors import AppError
from app.http.uploads import read_uploads
from app.ingest import UploadFile as RawFile
from app.schemas.bounds import DB_INT_MAX, DbId
from app.settings import Settings

IdPath = Annotated[int, Path(ge=1, le=DB_INT_MAX, description="id")]
__all__ = ["DbId", "IdPath"]


def get_settings_dep(request: Request) -> Settings:
    settings: Settings = request.app.state.settings
    return settings


async def session_slot(request: Request) -> AsyncIterator[None]:
    """A slot among the app's sessions (its pool's capacity), waited for on the event loop.

    A request holds its pooled connection until its session ends, after its answer is
    serialized, which FastAPI does on a worker thread. So no more sessions are open than the
    pool has connections, and a request waits for one here, not on a thread: otherwise every
    thread could wait for a connection held by requests that wait for a thread."""
    async with session_slots(request.app.state):
        yield


def get_session(
    request: Request, _slot: Annotated[None, Depends(session_slot, scope="function")]
) -> Iterator[Session]:
    """One transaction per request: committed when the handler returns, rolled back on error,
    and closed either way (even when the commit fails). A plain `def`: FastAPI runs its start
    and its end on worker threads (the end shielded from cancellation, on a limiter of its own,
    so it never waits for a request thread), never on the event loop; the slot is released
    after it."""
    session: Session = request.app.state.sessionmaker()
    try:
        yield session
    except BaseException:
        try:
            session.rollback()
        finally:
            session.close()
        raise
    try:
        session.commit()
    finally:
        session.close()


def session_slots(state: Any) -> anyio.Semaphore:
    """The app's one count of open sessions (its pool's capacity), made on first use; the MCP
    tools at /mcp wait on it too, so they and the routes never hold more than the pool has."""
    if getattr(state, "session_slots", None) is None:
        state.session_slots = anyio.Semaphore(state.session_capacity)
    slots: anyio.Semaphore = state.session_slots
    return slots


def is_htmx(hx_request: Annotated[str | None, Header()] = None) -> bool:
    return hx_request == "true"


def check_write_token(settings: Settings, supplied: str | None) -> None:
    """Every write needs the token when one is configured."""
    expected = settings.write_token
    if expected is None:
        return
    if not supplied or not hmac.compare_digest(supplied.encode(), expected.encode()):
        raise AppError(401, "Write token required", "This server needs a valid write token.")


def require_bearer(
    settings: Annotated[Settings, Depends(get_settings_dep)],
    authorization: Annotated[str | None, Header()] = None,
) -> None:
    token = None
    if authorization and authorization.lower().startswith("bearer "):
        token = authorization[7:].strip()
    check_write_token(settings, token)


# Ended before the answer is sent: the commit's outcome decides the status the client sees, and
# a slow client reading a large answer holds no connection.
SessionDep = Annotated[Session, Depends(get_session, scope="function")]
SettingsDep = Annotated[Settings, Depends(get_settings_dep)]
HtmxDep = Annotated[bool, Depends(is_htmx)]
WriteDep = Depends(require_bearer)


async def read_form(request: Request) -> FormData:
    """Awaited here so that the route itself can be a plain `def` running in the threadpool."""
    return await request.form()


@dataclass(frozen=True)
class Upload:
    files: list[RawFile]
    form: FormData

    def text(self, name: str) -> str | None:
        value = self.form.get(name)
        return value if isinstance(value, str) else None

    def release(self) -> None:
        """Let go of the files' bytes once they are parsed: a large upload's body is then not
        held while its sweeps are stored (it was the upload's peak memory: 80 MB of 2M
        requests)."""
        self.files.clear()


async def read_upload(
    form: Annotated[FormData, Depends(read_form)],
    settings: Annotated[Settings, Depends(get_settings_dep)],
) -> Upload:
    """The uploaded files (under the size cap) and the form's text fields. The form's file
    parts are closed once read: `files` then holds the only reference to their bytes."""
    files = [f for f in form.getlist("files") if isinstance(f, StarletteUpload) and f.filename]
    read = await read_uploads(files, settings.max_upload_bytes)
    for part in files:
        part.file.close()  # in memory (app.http.uploads.HeldUpload): nothing to wait for
    return Upload(read, form)


FormDep = Annotated[FormData, Depends(read_form)]
UploadDep = Annotated[Upload, Depends(read_upload)]
