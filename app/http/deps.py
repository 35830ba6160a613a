"""Request-scoped dependencies: the session, settings, the write-token check, htmx detection."""

from __future__ import annotations

import hmac
from collections.abc import Iterator
from typing import Annotated

from fastapi import Depends, Header, Request
from sqlalchemy.orm import Session

from app.http.errors import AppError
from app.settings import Settings


def get_settings_dep(request: Request) -> Settings:
    settings: Settings = request.app.state.settings
    return settings


def get_session(request: Request) -> Iterator[Session]:
    """One transaction per request: committed when the handler returns, rolled back on error."""
    session: Session = request.app.state.sessionmaker()
    try:
        yield session
        session.commit()
    except BaseException:
        session.rollback()
        raise
    finally:
        session.close()


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


SessionDep = Annotated[Session, Depends(get_session)]
SettingsDep = Annotated[Settings, Depends(get_settings_dep)]
HtmxDep = Annotated[bool, Depends(is_htmx)]
WriteDep = Depends(require_bearer)
