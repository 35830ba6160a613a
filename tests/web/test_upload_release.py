"""An upload through the API lets go of its files' bytes once they are parsed, before its sweeps
are stored: the body (80 MB at 2M requests) is then not held at the store's peak memory."""

from __future__ import annotations

import gc
from typing import Any

import pytest
from fastapi.testclient import TestClient

from app.http.uploads import HeldUpload
from app.ingest import UploadFile as RawFile
from app.services.upload import save as uploads
from app.store import sweep_save

POINTS = "sweep,hardware,num_gpus,concurrency,tpot_p50_ms,output_tok_s\n" + "".join(
    f"let-go,H100,8,{c},10,1000\n" for c in range(1, 40)
)
REQUESTS = "sweep,concurrency,ttft_ms,e2el_ms,output_len,ok\n" + "".join(
    f"let-go,{1 + i % 39},{100 + i % 7}.5,{900 + i}.25,{64 + i % 13},true\n" for i in range(20_011)
)


def held_at_store(monkeypatch: pytest.MonkeyPatch) -> list[dict[str, Any]]:
    """What still holds the upload's bytes when its sweeps are stored."""
    seen: list[dict[str, Any]] = []
    real = sweep_save.save_parsed
    sizes = {len(POINTS.encode()), len(REQUESTS.encode())}

    def save(*args: Any, **kwargs: Any) -> Any:
        live = gc.get_objects()
        seen.append(
            {
                "files": [o.name for o in live if isinstance(o, RawFile) and len(o.data) in sizes],
                "open parts": [
                    o.filename for o in live if isinstance(o, HeldUpload) and not o.file.closed
                ],
            }
        )
        return real(*args, **kwargs)

    monkeypatch.setattr(sweep_save, "save_parsed", save)
    return seen


def test_an_api_upload_holds_none_of_its_files_bytes_while_its_sweeps_are_stored(
    client: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    seen = held_at_store(monkeypatch)
    files = [
        ("files", ("p.csv", POINTS.encode())),
        ("files", ("p.requests.csv", REQUESTS.encode())),
    ]
    answer = client.post("/api/sweeps", files=files)
    assert answer.status_code == 201, answer.text
    assert seen == [{"files": [], "open parts": []}]


def test_the_parsed_hook_runs_once_the_files_are_parsed_and_before_anything_is_stored(
    client: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    order: list[str] = []
    real = sweep_save.save_parsed
    monkeypatch.setattr(
        sweep_save, "save_parsed", lambda *a, **k: (order.append("stored"), real(*a, **k))[1]
    )
    data = [RawFile("p.csv", POINTS.encode()), RawFile("p.requests.csv", REQUESTS.encode())]
    session = client.app.state.sessionmaker()  # type: ignore[attr-defined]
    try:
        options = uploads.UploadOptions(parsed=lambda: order.append("parsed"))
        uploads.store_checked(session, data, {}, options=options)
        session.rollback()
    finally:
        session.close()
    assert order == ["parsed", "stored"]
