"""The per-request session (`app.http.deps.get_session`): committed when the handler returns,
rolled back when it raises, and its connection back in the pool either way, even when the
commit itself fails."""

from __future__ import annotations

import inspect
from collections.abc import Iterator
from types import SimpleNamespace
from typing import Any

import anyio
import pytest
from sqlalchemy import Engine, func, select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from app.http.deps import get_session
from app.settings import Settings
from app.store.db import make_sessionmaker
from app.store.models import SloPreset


def _request(engine: Engine) -> Any:
    state = SimpleNamespace(sessionmaker=make_sessionmaker(engine), session_capacity=2)
    return SimpleNamespace(app=SimpleNamespace(state=state))


def _preset(key: str) -> SloPreset:
    return SloPreset(key=key, name=key, ttft_ms=100.0)


def _presets(engine: Engine) -> list[str]:
    with make_sessionmaker(engine)() as session:
        return list(session.scalars(select(SloPreset.key).order_by(SloPreset.key)))


def _run(engine: Engine, handler: Any) -> None:
    """The dependency as FastAPI drives a plain generator: started, then resumed or thrown into."""
    sessions: Iterator[Session] = get_session(_request(engine), None)
    session = next(sessions)
    try:
        handler(session)
    except BaseException as exc:
        with pytest.raises(type(exc)):
            sessions.throw(exc)
        raise
    with pytest.raises(StopIteration):
        next(sessions)


def test_a_handler_that_returns_has_its_writes_committed_and_its_connection_returned(
    engine: Engine,
) -> None:
    _run(engine, lambda session: session.add(_preset("kept")))
    assert "kept" in _presets(engine)
    assert engine.pool.checkedout() == 0  # type: ignore[attr-defined]


def test_a_handler_that_raises_has_its_writes_rolled_back_and_its_connection_returned(
    engine: Engine,
) -> None:
    def fails(session: Session) -> None:
        session.add(_preset("dropped"))
        session.flush()
        raise RuntimeError("the handler failed")

    with pytest.raises(RuntimeError, match="the handler failed"):
        _run(engine, fails)
    assert "dropped" not in _presets(engine)
    assert engine.pool.checkedout() == 0  # type: ignore[attr-defined]


def test_a_commit_that_fails_raises_and_still_returns_the_connection(engine: Engine) -> None:
    _run(engine, lambda session: session.add(_preset("twice")))
    before = len(_presets(engine))
    with pytest.raises(IntegrityError):
        _run(engine, lambda session: session.add(_preset("twice")))  # the key is taken
    with make_sessionmaker(engine)() as session:
        assert session.scalar(select(func.count()).select_from(SloPreset)) == before
    assert engine.pool.checkedout() == 0  # type: ignore[attr-defined]


def test_a_worker_runs_its_routes_on_as_many_threads_as_set_with_a_pooled_connection_each(
    make_client: Any,
) -> None:
    client = make_client(threads=3)
    limiter = client.portal.call(anyio.to_thread.current_default_thread_limiter)  # type: ignore[union-attr]
    assert limiter.total_tokens == 3
    assert client.app.state.engine.pool.size() == 3  # type: ignore[attr-defined]
    assert client.get("/healthz").status_code == 200


def test_a_worker_runs_few_threads_by_default_since_python_runs_one_at_a_time() -> None:
    # More threads than a few only contend for the interpreter lock (see app.settings).
    assert Settings.model_fields["threads"].default == 4


def test_the_session_is_a_plain_generator_so_its_database_work_runs_on_worker_threads() -> None:
    # FastAPI starts and ends a plain generator dependency on worker threads; only the wait
    # for a session slot (session_slot) stays on the event loop.
    assert inspect.isgeneratorfunction(get_session)
    assert not inspect.isasyncgenfunction(get_session)
