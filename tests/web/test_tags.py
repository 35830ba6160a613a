"""Sweep tags through the API, the upload and the sweep page; on SQLite and Postgres."""

from __future__ import annotations

from collections.abc import Callable

from bs4 import BeautifulSoup
from fastapi.testclient import TestClient
from sqlalchemy.orm import Session

from app.store.models import Sweep, SweepCheck, SweepTag
from app.store.tags import newest_with_tag
from tests.factories import MINIMAL, count, post_files

OTHER = MINIMAL.replace(b"mini,", b"other,")


def test_tags_are_added_replaced_listed_and_removed_through_the_api(client: TestClient) -> None:
    assert post_files(client, ("mini.csv", MINIMAL)).status_code == 201
    added = client.post("/api/sweeps/1/tags", json={"tag": "nightly"})
    assert added.json() == {"sweep_id": 1, "tags": ["nightly"]}
    again = client.post("/api/sweeps/1/tags", json={"tags": ["baseline:main", "nightly"]})
    assert again.json()["tags"] == ["baseline:main", "nightly"]
    assert client.get("/api/sweeps/1").json()["tags"] == ["baseline:main", "nightly"]
    [listed] = client.get("/api/sweeps").json()["sweeps"]
    assert listed["tags"] == ["baseline:main", "nightly"]
    assert client.put("/api/sweeps/1/tags", json={"tags": ["v1.2+rc@x"]}).json()["tags"] == [
        "v1.2+rc@x"
    ]
    assert client.delete("/api/sweeps/1/tags/v1.2+rc@x").json()["tags"] == []
    assert client.get("/api/sweeps/1/tags").json() == {"sweep_id": 1, "tags": []}


def test_a_bad_tag_is_refused_naming_the_field(client: TestClient, session: Session) -> None:
    post_files(client, ("mini.csv", MINIMAL))
    cases = [
        ("post", {"tag": "two words"}, "tag", "'two words' may hold only letters, digits"),
        ("put", {"tags": ["1234"]}, "tags", "'1234' is all digits, which names a sweep by id"),
        ("post", {"tag": "x" * 65}, "tag", "is longer than 64 characters"),
        ("put", {"tags": [f"t{i}" for i in range(33)]}, "tags", "at most 32 tags per sweep"),
        ("post", {"tag": ""}, "tag", "a tag cannot be empty"),
    ]
    for method, body, field, message in cases:
        response = getattr(client, method)("/api/sweeps/1/tags", json=body)
        assert response.status_code == 422, body
        [error] = response.json()["errors"]
        assert error["field"] == field
        assert message in error["message"]
    assert client.post("/api/sweeps/9/tags", json={"tag": "x"}).status_code == 404
    assert client.post("/api/sweeps/1/tags", json={"label": "x"}).status_code == 422
    assert count(session, SweepTag) == 0


def test_upload_tags_go_on_every_sweep_and_a_bad_one_stores_nothing(
    client: TestClient, session: Session
) -> None:
    both = MINIMAL + OTHER.split(b"\n", 1)[1]
    saved = post_files(client, ("two.csv", both), tags="nightly, baseline:main")
    assert saved.status_code == 201
    for sweep in client.get("/api/sweeps").json()["sweeps"]:
        assert sweep["tags"] == ["baseline:main", "nightly"]
    refused = post_files(client, ("third.csv", MINIMAL.replace(b"mini,", b"third,")), tags="ok no!")
    assert refused.status_code == 422
    [error] = refused.json()["errors"]
    assert (error["file"], error["column"]) == ("(form)", "tags")
    assert "'no!' may hold only letters" in error["message"]
    assert count(session, Sweep) == 2


def test_tag_writes_need_the_write_token(make_client: Callable[..., TestClient]) -> None:
    client = make_client(write_token="s3cret")
    auth = {"Authorization": "Bearer s3cret"}
    post = client.post(
        "/api/sweeps", files=[("files", ("m.csv", MINIMAL, "text/csv"))], headers=auth
    )
    assert post.status_code == 201
    assert client.post("/api/sweeps/1/tags", json={"tag": "nightly"}).status_code == 401
    assert (
        client.post("/api/sweeps/1/tags", json={"tag": "nightly"}, headers=auth).status_code == 200
    )
    assert client.delete("/api/sweeps/1/tags/nightly").status_code == 401
    assert client.post("/sweeps/1/tags", data={"tag": "x"}).status_code == 401


def chips(html: str) -> list[str]:
    return [li["data-tag"] for li in BeautifulSoup(html, "html.parser").select("[data-tag]")]


def test_the_sweep_page_adds_and_removes_tags_with_htmx(
    client: TestClient, hx_client: TestClient
) -> None:
    post_files(client, ("mini.csv", MINIMAL))
    page = BeautifulSoup(client.get("/sweeps/1").text, "html.parser")
    form = page.select_one("#sweep-tags form#tags-form")
    assert form is not None and form["hx-post"] == "/sweeps/1/tags"
    assert "No tags yet." in page.select_one("#sweep-tags").text
    added = hx_client.post("/sweeps/1/tags", data={"tag": "nightly"})
    assert added.status_code == 200
    assert chips(added.text) == ["nightly"]
    hx_client.post("/sweeps/1/tags", data={"tag": "baseline:main"})
    removed = hx_client.post("/sweeps/1/tags/remove", data={"remove": "nightly", "tag": ""})
    assert chips(removed.text) == ["baseline:main"]
    bad = hx_client.post("/sweeps/1/tags", data={"tag": "no spaces"})
    assert bad.status_code == 422
    error = BeautifulSoup(bad.text, "html.parser").select_one("#tag-error")
    assert error is not None and error.text.startswith("Tag not added: 'no spaces' may hold")
    # Without htmx the form posts and comes back to the page.
    plain = client.post("/sweeps/1/tags", data={"tag": "release"}, follow_redirects=False)
    assert (plain.status_code, plain.headers["location"]) == (303, "/sweeps/1")
    assert chips(client.get("/sweeps/1").text) == ["baseline:main", "release"]
    listing = BeautifulSoup(client.get("/sweeps").text, "html.parser")
    assert [c.text for c in listing.select("td.tags .tag-chip")] == ["baseline:main", "release"]


def test_the_newest_sweep_with_a_tag_stands_for_it_and_deletes_cascade(
    client: TestClient, session: Session
) -> None:
    post_files(client, ("a.csv", MINIMAL), tags="nightly")
    post_files(client, ("b.csv", OTHER), tags="nightly")
    newest = newest_with_tag(session, "nightly")
    assert newest is not None and newest.name == "other"
    session.add(
        SweepCheck(
            candidate_id=2,
            baseline_id=1,
            candidate_ref="2",
            baseline_ref="1",
            options={},
            verdict="pass",
            headline="pass",
            summary="",
        )
    )
    session.commit()
    assert client.delete("/api/sweeps/2").status_code == 204
    session.expire_all()
    newest = newest_with_tag(session, "nightly")
    assert newest is not None and newest.name == "mini"
    assert (count(session, SweepTag), count(session, SweepCheck)) == (1, 0)


def test_the_upload_form_tags_what_it_saves_and_keeps_a_bad_tag_for_correction(
    client: TestClient, session: Session
) -> None:
    page = BeautifulSoup(client.get("/upload").text, "html.parser")
    assert page.select_one("input[name=tags]") is not None
    files = [("files", ("mini.csv", MINIMAL, "text/csv"))]
    bad = client.post("/upload", files=files, data={"tags": "nightly, not ok!"})
    assert bad.status_code == 422
    form = BeautifulSoup(bad.text, "html.parser")
    errors = [e.text for e in form.select(".alert-error li")]
    assert any("(form), column 'tags': 'ok!' may hold only letters" in e for e in errors)
    assert form.select_one("input[name=tags]")["value"] == "nightly, not ok!"
    assert count(session, Sweep) == 0
    saved = client.post("/upload", files=files, data={"tags": "nightly"}, follow_redirects=False)
    assert (saved.status_code, saved.headers["location"]) == (303, "/sweeps/1")
    assert client.get("/api/sweeps/1/tags").json()["tags"] == ["nightly"]
