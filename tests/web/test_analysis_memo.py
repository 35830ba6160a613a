"""A sweep's read-off and SLO sensitivity are kept per SLO (points never change): the same SLO
reads the same figures without judging a point again, a new SLO or an edited GPU count computes
anew, and what is kept equals what a fresh computation gives. And what else a server does once,
not per page: garbage collection tuned, templates compiled at start."""

from __future__ import annotations

import gc
import os
from collections.abc import Iterator
from typing import Any

import polars as pl
import pytest
from fastapi.testclient import TestClient
from sqlalchemy import event, select
from sqlalchemy.orm import Session

from app.domain import slo as slo_domain
from app.domain.numbers import fmt_load, fmt_number
from app.domain.point import Metric
from app.domain.verdict import Slo
from app.http.templating import templates
from app.main import GC_GEN0_THRESHOLD, load_templates, tune_gc
from app.services import analysis
from app.services.analysis import Params
from app.services.compare import sensitivity as slo_sensitivity
from app.services.sweeps.memo import remember
from app.store import points as point_queries
from app.store import sweeps as sweep_queries
from app.store.models import Sweep


@pytest.fixture
def sweep_ids(session: Session, seeded: None) -> list[int]:
    return list(session.scalars(select(Sweep.id).order_by(Sweep.id)))


def _params(ttft_ms: float) -> Params:
    return Params(Slo(ttft_ms=ttft_ms, tpot_ms=40, percentile="p90"))


def test_the_same_slo_reads_the_kept_read_off_which_equals_a_fresh_one(
    session: Session, sweep_ids: list[int]
) -> None:
    first, _ = analysis.run(session, sweep_ids, _params(500), [], None)
    again, _ = analysis.run(session, sweep_ids, _params(500), [], None)
    for kept, second in zip(first, again, strict=True):
        assert second.readoff is kept.readoff  # from memory, not judged again
        assert second.intervals is kept.intervals
        fresh = slo_domain.percentile_readoff(kept.points, _params(500).slo, "output", "p50")
        assert kept.readoff == fresh


def test_per_request_figures_are_kept_and_equal_a_fresh_count(session: Session) -> None:
    from app.ingest import UploadFile
    from app.services.upload import save as uploads
    from tests.web.test_intervals_api import POINTS, REQUESTS

    files = [UploadFile("ci.csv", POINTS), UploadFile("ci.requests.csv", REQUESTS)]
    [saved] = uploads.store(session, files, {})
    sweep_id = saved.sweep.id
    params = Params(Slo(ttft_ms=500, attainment=0.8), mode="requests")
    (first,), _ = analysis.run(session, [sweep_id], params, [], None)
    (again,), _ = analysis.run(session, [sweep_id], params, [], None)
    assert again.readoff is first.readoff and again.intervals is first.intervals
    assert first.readoff.goodput_tok_s_per_gpu is not None
    first.derived.pop(("memo", "readoff"))  # forget it: a fresh count reads the same figures
    (fresh,), _ = analysis.run(session, [sweep_id], params, [], None)
    assert fresh.readoff is not first.readoff
    assert fresh.readoff == first.readoff and fresh.intervals == first.intervals
    tighter = Params(Slo(ttft_ms=1, attainment=0.8), mode="requests")
    (tight,), _ = analysis.run(session, [sweep_id], tighter, [], None)
    assert tight.readoff.goodput_tok_s_per_gpu is None


def test_a_new_slo_is_judged_anew(session: Session, sweep_ids: list[int]) -> None:
    loose, _ = analysis.run(session, sweep_ids, _params(5000), [], None)
    tight, _ = analysis.run(session, sweep_ids, _params(1), [], None)
    assert any(r.readoff.goodput_tok_s_per_gpu is not None for r in loose)
    assert all(r.readoff.goodput_tok_s_per_gpu is None for r in tight)  # no TTFT is under 1 ms


def test_an_edited_gpu_count_is_not_answered_from_memory(
    session: Session, sweep_ids: list[int]
) -> None:
    sweep_id = sweep_ids[0]
    (before,), _ = analysis.run(session, [sweep_id], _params(5000), [], None)
    gpus = before.meta.num_gpus
    sweep_queries.update_sweep(session, sweep_id, {"num_gpus": gpus * 2})
    session.commit()
    (after,), _ = analysis.run(session, [sweep_id], _params(5000), [], None)
    assert before.readoff.goodput_tok_s_per_gpu is not None
    assert after.readoff.goodput_tok_s_per_gpu == pytest.approx(
        before.readoff.goodput_tok_s_per_gpu / 2, rel=1e-12
    )


def test_kept_sensitivity_steps_equal_a_fresh_computation(
    session: Session, sweep_ids: list[int]
) -> None:
    results, _ = analysis.run(session, sweep_ids, _params(500), [], None)
    kept = slo_sensitivity.sensitivity_series(results, _params(500), "tpot", None, None)
    again = slo_sensitivity.sensitivity_series(results, _params(500), "tpot", None, None)
    for a, b in zip(kept, again, strict=True):
        assert a.steps == b.steps
    for result in results:  # forget what was kept: a fresh computation gives the same steps
        result.derived.pop(("memo", "sensitivity"), None)
    fresh = slo_sensitivity.sensitivity_series(results, _params(500), "tpot", None, None)
    assert [s.steps for s in fresh] == [s.steps for s in kept]
    assert any(st.goodput_tok_s_per_gpu for s in fresh for st in s.steps)


def test_a_new_limit_of_the_varied_metric_reads_the_kept_steps_equal_to_fresh_ones(
    session: Session, sweep_ids: list[int], monkeypatch: pytest.MonkeyPatch
) -> None:
    def tpot(ms: float) -> Params:
        return Params(Slo(ttft_ms=500, tpot_ms=ms, percentile="p90"))

    point_queries.clear_caches()  # a new process: nothing kept for these sweeps yet
    results, _ = analysis.run(session, sweep_ids, tpot(40), [], None)
    kept = slo_sensitivity.sensitivity_series(results, tpot(40), "tpot", None, None)
    stepped: list[int] = []
    computed = slo_sensitivity.sensitivity
    monkeypatch.setattr(
        slo_sensitivity, "sensitivity", lambda *a, **k: stepped.append(1) or computed(*a, **k)
    )
    moved, _ = analysis.run(session, sweep_ids, tpot(25), [], None)
    again = slo_sensitivity.sensitivity_series(moved, tpot(25), "tpot", None, None)
    # The steps vary the TPOT limit: a new TPOT limit reads the same steps back.
    assert stepped == [] and [s.steps for s in again] == [s.steps for s in kept]
    for result in moved:  # forget them: a fresh computation at TPOT ≤ 25 ms gives the same
        result.derived.pop(("memo", "sensitivity"))
    fresh = slo_sensitivity.sensitivity_series(moved, tpot(25), "tpot", None, None)
    assert len(stepped) == len(moved) and [s.steps for s in fresh] == [s.steps for s in kept]
    assert any(st.goodput_tok_s_per_gpu for s in fresh for st in s.steps)
    # Over TTFT, the TPOT limit is held: another TPOT limit is other steps.
    at_40 = slo_sensitivity.sensitivity_series(results, tpot(40), "ttft", None, None)
    at_25 = slo_sensitivity.sensitivity_series(moved, tpot(25), "ttft", None, None)
    assert [s.steps for s in at_40] != [s.steps for s in at_25]


def test_the_percentile_limits_stepped_through_are_worked_out_once_per_selection(
    session: Session, sweep_ids: list[int], monkeypatch: pytest.MonkeyPatch
) -> None:
    point_queries.clear_caches()  # a new process: nothing kept for these sweeps yet
    worked: list[str] = []
    limits = slo_sensitivity.percentile_limits
    monkeypatch.setattr(
        slo_sensitivity, "percentile_limits", lambda *a, **k: worked.append(a[1]) or limits(*a, **k)
    )

    def stepped(ttft_ms: float, metric: Metric) -> list[float]:
        results, _ = analysis.run(session, sweep_ids, _params(ttft_ms), [], None)
        series = slo_sensitivity.sensitivity_series(results, _params(ttft_ms), metric, None, None)
        return [st.limit_ms for st in series[0].steps]

    first = stepped(500, "tpot")
    assert stepped(400, "tpot") == first and stepped(300, "tpot") == first
    assert worked == ["tpot"]  # each new SLO stepped through the limits kept
    points = point_queries.sweeps_with_points(session, sweep_ids)
    fresh = limits([analysis.analyse([p], _params(1), [])[0].points for p in points], "tpot", "p90")
    assert first == fresh and len(first) > 3
    assert stepped(200, "ttft") != first and worked == ["tpot", "ttft"]


def test_per_request_sensitivity_is_kept_per_sweep_and_equals_a_fresh_pass(
    session: Session, monkeypatch: pytest.MonkeyPatch
) -> None:
    from app.ingest import UploadFile
    from app.services.upload import save as uploads
    from tests.web.test_intervals_api import POINTS, REQUESTS

    files = [UploadFile("ci.csv", POINTS), UploadFile("ci.requests.csv", REQUESTS)]
    [saved] = uploads.store(session, files, {})
    params = Params(Slo(ttft_ms=500, attainment=0.8), mode="requests")
    results, _ = analysis.run(session, [saved.id], params, [], None)
    samples = pl.concat([r.samples for r in results if r.samples is not None])
    kept = slo_sensitivity.sensitivity_series(results, params, "tpot", None, samples)
    assert any(st.goodput_tok_s_per_gpu for s in kept for st in s.steps)
    passes: list[int] = []
    counted = slo_sensitivity.request_buckets
    monkeypatch.setattr(
        slo_sensitivity, "request_buckets", lambda *a: passes.append(1) or counted(*a)
    )
    again = slo_sensitivity.sensitivity_series(results, params, "tpot", None, samples)
    assert passes == []  # the same view again: every sweep's steps read back
    assert [s.steps for s in again] == [s.steps for s in kept]
    for result in results:
        result.derived.pop(("memo", "sensitivity"))
    fresh = slo_sensitivity.sensitivity_series(results, params, "tpot", None, samples)
    assert passes == [1] and [s.steps for s in fresh] == [s.steps for s in kept]
    loose = Params(Slo(ttft_ms=5000, attainment=0.8), mode="requests")
    slo_sensitivity.sensitivity_series(results, loose, "tpot", None, samples)
    assert passes == [1, 1]  # another SLO is another pass
    moved = Params(Slo(ttft_ms=500, tpot_ms=30, attainment=0.8), mode="requests")
    same = slo_sensitivity.sensitivity_series(results, moved, "tpot", None, samples)
    assert passes == [1, 1]  # but not another limit of the varied metric: its steps read back
    assert [s.steps for s in same] == [s.steps for s in kept]


def test_the_requests_sorted_for_the_sensitivity_limits_are_sorted_once_per_selection(
    session: Session, monkeypatch: pytest.MonkeyPatch
) -> None:
    from app.ingest import UploadFile
    from app.services.upload import save as uploads
    from bench.common import synthetic_requests_csv, synthetic_sweeps_csv

    points, requests = synthetic_sweeps_csv(1, 8), synthetic_requests_csv(1, 8, 40)
    files = [UploadFile("points.csv", points), UploadFile("requests.csv", requests)]
    [saved] = uploads.store(session, files, {})
    sorted_for: list[str] = []
    limits = slo_sensitivity.request_limits
    monkeypatch.setattr(
        slo_sensitivity, "request_limits", lambda s, m: sorted_for.append(m) or limits(s, m)
    )

    def steps(ttft_ms: float, metric: Metric) -> tuple[list[float], pl.DataFrame]:
        params = Params(Slo(ttft_ms=ttft_ms, tpot_ms=60, attainment=0.8), mode="requests")
        results, _ = analysis.run(session, [saved.id], params, [], None)
        samples = pl.concat([r.samples for r in results if r.samples is not None])
        [series] = slo_sensitivity.sensitivity_series(results, params, metric, None, samples)
        return [st.limit_ms for st in series.steps], samples

    first, samples = steps(500, "ttft")
    assert first == limits(samples, "ttft") and len(first) > 10
    assert steps(501, "ttft")[0] == first and steps(502, "ttft")[0] == first
    assert sorted_for == ["ttft"]  # each new SLO stepped through the limits kept
    assert steps(503, "e2el")[0] == limits(samples, "e2el") != first
    assert sorted_for == ["ttft", "e2el"]  # another metric has its own


def test_only_the_last_sixteen_slos_of_each_kind_are_kept_per_sweep() -> None:
    derived: dict[object, object] = {}
    calls: list[int] = []
    for k in range(20):
        assert remember(derived, ("readoff", k), lambda k=k: calls.append(k) or k) == k
    assert remember(derived, ("readoff", 19), lambda: calls.append(-1) or -1) == 19
    assert remember(derived, ("other", 0), lambda: "x") == "x"
    assert calls == list(range(20))  # the last one asked again was not computed again
    assert list(derived[("memo", "readoff")]) == [("readoff", k) for k in range(4, 20)]  # type: ignore[call-overload]
    assert remember(derived, ("readoff", 0), lambda: "again") == "again"  # forgotten: anew


def test_facet_values_are_the_distinct_values_of_each_field_typed(
    session: Session, sweep_ids: list[int]
) -> None:
    # A sweep that leaves most fields empty: no facet offers an empty value.
    session.add(Sweep(name="bare", hardware="X1", num_gpus=1, content_hash="f" * 64))
    session.flush()
    facets = sweep_queries.facet_values(session)
    assert "X1" in facets["hardware"] and None not in facets["model"] + facets["isl"]
    for name in ("model", "hardware", "engine", "precision", "source_kind", "isl", "osl"):
        column = getattr(Sweep, name)
        expected = sorted(
            set(session.scalars(select(column).where(column.is_not(None))))  # type: ignore[arg-type]
        )
        assert facets[name] == expected, name
    assert facets["isl"] and all(isinstance(v, int) for v in facets["isl"] + facets["osl"])


@pytest.fixture
def gc_restored() -> Iterator[None]:
    threshold = gc.get_threshold()
    yield
    gc.set_threshold(*threshold)
    gc.unfreeze()


def test_the_server_collects_garbage_less_often_and_freezes_what_it_started_with(
    gc_restored: None,
) -> None:
    tune_gc()
    assert gc.get_threshold()[0] == GC_GEN0_THRESHOLD
    assert gc.get_freeze_count() > 0


def test_the_sensitivity_hover_reads_each_steps_limit_and_goodput_as_formatted(
    client: TestClient, sweep_ids: list[int]
) -> None:
    figure = client.get("/api/explore", params={"sweep": sweep_ids, "picked": 1}).json()[
        "sensitivity"
    ]
    assert figure["data"]
    for trace in figure["data"]:
        assert trace["hovertemplate"] == "≤ %{customdata}: %{text}"
        assert trace["customdata"] == [fmt_load(x, "ms") for x in trace["x"]]
        assert trace["text"] == [fmt_number(y) for y in trace["y"]]


@pytest.fixture
def templates_restored() -> Iterator[None]:
    reload = templates.env.auto_reload
    yield
    templates.env.auto_reload = reload


def test_the_server_compiles_every_template_at_start_and_reads_none_again(
    templates_restored: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    load_templates(reload=False)
    assert templates.env.auto_reload is False
    compiled: list[str | None] = []
    compile_template = templates.env.compile

    def counting(source: str, name: str | None = None, *args: Any, **kwargs: Any) -> Any:
        compiled.append(name)
        return compile_template(source, name, *args, **kwargs)

    monkeypatch.setattr(templates.env, "compile", counting)
    monkeypatch.setattr(os.path, "getmtime", lambda _path: pytest.fail("a template was re-read"))
    names = templates.env.list_templates(extensions=["html"])
    assert "explore/_view.html" in names
    for name in names:
        templates.env.get_template(name)
    assert compiled == []


def test_serve_with_reload_rereads_edited_templates(templates_restored: None) -> None:
    load_templates(reload=True)
    assert templates.env.auto_reload is True


def test_sweeps_the_session_already_loaded_are_read_without_asking_for_them_again(
    session: Session, sweep_ids: list[int]
) -> None:
    ids = sweep_ids[:3]
    fresh = [(s.meta, s.rows) for s in point_queries.sweeps_with_points(session, ids)]
    session.expunge_all()
    # As Explore's picker does first, keeping them for the page (the session holds loaded
    # objects only while something else does).
    picked = sweep_queries.sweeps_in_order(session, ids)
    asked: list[str] = []

    def note(_conn: Any, _cursor: Any, statement: str, *_: Any) -> None:
        asked.append(statement)

    engine = session.get_bind()
    event.listen(engine, "before_cursor_execute", note)
    try:
        again = [(s.meta, s.rows) for s in point_queries.sweeps_with_points(session, ids)]
        assert again == fresh
        assert not any("FROM sweep" in q for q in asked)  # points come from the cache too
        # A sweep changed in this session is read from the database, not from the session.
        picked[0].name = "renamed, not flushed"
        point_queries.sweeps_with_points(session, ids)
        assert any("FROM sweep" in q for q in asked)
    finally:
        event.remove(engine, "before_cursor_execute", note)
