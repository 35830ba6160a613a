"""Request-scoped dependencies: the session, settings, the write-token check, htmx detection,
the form and uploaded files read before a plain `def` route runs, and bounded ids."""

from __future__ import annotations

import hmac
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from typing import Annotated, Any

import anyio
import anyio.to_thread
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


async def get_session(request: Request) -> AsyncIterator[Session]:
    """One transaction per request: committed when the handler returns, rolled back on error.

    A request holds its pooled connection until here, after its answer is serialized, which
    FastAPI does on a worker thread. So no more sessions are open than the pool has connections
    (waiting for a slot on the event loop, not on a thread): otherwise every thread could wait
    for a connection held by requests that wait for a thread.
    """
    state = request.app.state
    async with session_slots(state):
        session: Session = state.sessionmaker()
        try:
            yield session
        except BaseException:
            await _finish(session.rollback, session.close)
            raise
        await _finish(session.commit, session.close)


def session_slots(state: Any) -> anyio.Semaphore:
    """The app's one count of open sessions (its pool's capacity), made on first use; the MCP
    tools at /mcp wait on it too, so they and the routes never hold more than the pool has."""
    if getattr(state, "session_slots", None) is None:
        state.session_slots = anyio.Semaphore(state.session_capacity)
    slots: anyio.Semaphore = state.session_slots
    return slots


async def _finish(end: Callable[[], None], close: Callable[[], None]) -> None:
    # Shielded and on a thread of its own: ending a session never waits for a request thread.
    # Ending and closing in one trip: a trip to a thread and back costs the event loop more
    # than a read-only commit does.
    def finish() -> None:
        try:
            end()
        finally:
            close()

    with anyio.CancelScope(shield=True):
        await anyio.to_thread.run_sync(finish, limiter=anyio.CapacityLimiter(1))


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


async def read_upload(
    form: Annotated[FormData, Depends(read_form)],
    settings: Annotated[Settings, Depends(get_settings_dep)],
) -> Upload:
    """The uploaded files (under the size cap) and the form's text fields."""
    files = [f for f in form.getlist("files") if isinstance(f, StarletteUpload) and f.filename]
    return Upload(await read_uploads(files, settings.max_upload_bytes), form)


FormDep = Annotated[FormData, Depends(read_form)]
UploadDep = Annotated[Upload, Depends(read_upload)]
