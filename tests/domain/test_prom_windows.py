"""Histograms against records: one synthetic stream, written as per-request records and as vLLM
V1 histograms; the window points read from the histograms match the records."""

from __future__ import annotations

import math

import numpy as np
import pytest

from app.domain.prom_histogram import attainment, histogram_of, joint_bounds, quantile, verdict
from app.domain.prom_names import Measure
from app.domain.prom_range import RangeError, scrapes_of_range
from app.domain.prom_text import ExpositionError, Scrape, parse_exposition
from app.domain.prom_window import WindowError, windows
from tests.prom_stream import make_stream

ORIGIN = 1_780_000_000.0
STREAM = make_stream()
TIMES = [float(t) for t in range(0, 1201, 60)]
SCRAPES = [parse_exposition(STREAM.exposition(t), scraped_at_s=ORIGIN + t) for t in TIMES]
COLUMNS: dict[Measure, str] = {"ttft": "ttft_s", "tpot": "tpot_s", "e2el": "e2el_s"}


def test_window_points_from_histograms_match_the_records() -> None:
    made = windows(SCRAPES, num_gpus=4, window_s=300)
    assert made.engine == "vllm" and not made.refused
    assert [(w.start_s - ORIGIN, w.end_s - ORIGIN) for w in made.points] == [
        (0, 300), (300, 600), (600, 900), (900, 1200)
    ]  # fmt: skip
    for w in made.points:
        mine = STREAM.finished(w.start_s - ORIGIN, w.end_s - ORIGIN)
        # Throughput and rate exactly: counters of whole tokens and requests.
        assert w.requests == mine.sum()
        assert w.request_rate == mine.sum() / 300
        assert w.output_tok_s == STREAM.output_len[mine].sum() / 300
        assert w.total_tok_s == (STREAM.output_len[mine].sum() + STREAM.input_len[mine].sum()) / 300
        assert w.output_tok_s_per_gpu == w.output_tok_s / 4
        # Concurrency: the running gauge's time-average over every reading in [start, end].
        t0, t1 = w.start_s - ORIGIN, w.end_s - ORIGIN
        readings = [
            float(((STREAM.arrival_s <= t) & (STREAM.finish_s > t)).sum())
            for t in TIMES
            if t0 <= t <= t1
        ]
        trapezoid = (sum(readings) - (readings[0] + readings[-1]) / 2) / (len(readings) - 1)
        assert w.concurrency == pytest.approx(trapezoid, rel=1e-12)
        # The exact mean: _sum ÷ _count, no bucket involved.
        for measure, column in COLUMNS.items():
            true_mean_ms = float(getattr(STREAM, column)[mine].mean()) * 1000
            assert w.mean(measure) == (pytest.approx(true_mean_ms, rel=1e-9), None)
        for measure, column in COLUMNS.items():
            values_ms = getattr(STREAM, column)[mine] * 1000
            for q in (0.5, 0.9, 0.99):
                # The rank histogram_quantile finds is the ceil(qN)-th smallest value.
                true = float(np.percentile(values_ms, q * 100, method="inverted_cdf"))
                got = w.percentile(measure, q)
                assert got.bucket_ms is not None and got.value_ms is not None
                lower, upper = got.bucket_ms
                assert lower < true <= upper, (measure, q, true, got)
                assert lower <= got.value_ms <= upper
            hist = w.histograms[measure]
            at_bounds = hist.bounds_ms[5:9]
            for limit_ms in (*at_bounds, 123.4, 777.0):
                share = float((values_ms <= limit_ms).mean())
                got_share = attainment(hist, limit_ms)
                assert got_share.lower <= share <= got_share.upper
                # At a boundary exact; between two, exact only when nothing lies between.
                assert got_share.exact or limit_ms not in at_bounds


def test_a_range_query_answer_gives_the_same_windows_as_the_snapshots() -> None:
    series: dict[tuple[str, tuple[tuple[str, str], ...]], list[list[object]]] = {}
    for t, scrape in zip(TIMES, SCRAPES, strict=True):
        for s in scrape.samples:
            series.setdefault((s.name, s.labels), []).append([ORIGIN + t, repr(s.value)])
    doc = {
        "status": "success",
        "data": {
            "resultType": "matrix",
            "result": [
                {"metric": {"__name__": name, **dict(labels)}, "values": values}
                for (name, labels), values in series.items()
            ],
        },
    }
    from_range = windows(scrapes_of_range(doc), num_gpus=4, window_s=300).points
    from_text = windows(SCRAPES, num_gpus=4, window_s=300).points
    assert [(w.output_tokens, w.requests, w.histograms) for w in from_range] == [
        (w.output_tokens, w.requests, w.histograms) for w in from_text
    ]
    with pytest.raises(RangeError, match="__name__"):
        scrapes_of_range({**doc, "data": {"resultType": "matrix", "result": [{"metric": {}}]}})


def test_quantile_follows_histogram_quantile_and_attainment_bounds_give_three_verdicts() -> None:
    hist = histogram_of({100.0: 10, 200.0: 30, math.inf: 40}, "x")
    assert quantile(hist, 0.5).value_ms == 150.0  # rank 20: halfway through (100, 200]
    assert quantile(hist, 0.25).value_ms == 100.0
    assert quantile(hist, 0.1).value_ms == 40.0  # the first bucket starts at 0
    assert quantile(hist, 0.99).value_ms == 200.0  # +Inf bucket: the highest finite bound
    exact = attainment(hist, 200.0)
    assert (exact.lower, exact.upper, exact.exact) == (0.75, 0.75, True)
    between = attainment(hist, 150.0)
    assert (between.lower, between.upper) == (0.25, 0.75)
    assert verdict(between.lower, between.upper, 0.5) == "unknown"
    assert verdict(exact.lower, exact.upper, 0.7) == "pass"
    assert verdict(between.lower, between.upper, 0.9) == "fail"
    assert joint_bounds([exact, between]) == (0.0, 0.75)


def test_a_counter_reset_is_counted_as_rate_counts_it_and_said_so() -> None:
    a = parse_exposition(STREAM.exposition(600), scraped_at_s=0)
    b = parse_exposition(STREAM.exposition(120), scraped_at_s=300)  # restarted: fewer counted
    (w,) = windows([a, b], num_gpus=1).points
    early = STREAM.finished(-1, 120)
    assert w.output_tokens == STREAM.output_len[early].sum()
    assert any("reset" in n and "rate()" in n for n in w.notes)


def test_bad_scrapes_are_refused_with_their_reason() -> None:
    quiet = [parse_exposition(STREAM.exposition(5000), scraped_at_s=t) for t in (0, 300)]
    made = windows(quiet, num_gpus=1)
    assert not made.points and "no traffic" in made.refused[0].reason
    no_inf = [
        parse_exposition(
            "\n".join(
                line
                for line in STREAM.exposition(t).splitlines()
                if 'le="+Inf"' not in line or "e2e" not in line
            ),
            scraped_at_s=t,
        )
        for t in (300, 600)
    ]
    assert "+Inf" in windows(no_inf, num_gpus=1).refused[0].reason
    extra = parse_exposition(
        STREAM.exposition(600).replace('engine="1",model_name="m"', 'engine="2",model_name="m"'),
        scraped_at_s=600,
    )
    assert "mixed label sets" in windows([SCRAPES[5], extra], num_gpus=1).refused[0].reason
    two_models = parse_exposition(
        STREAM.exposition(600).replace('engine="1",model_name="m"', 'engine="1",model_name="n"'),
        scraped_at_s=600,
    )
    again = Scrape(two_models.samples, scraped_at_s=900)
    with pytest.raises(WindowError, match="2 models"):
        windows([two_models, again], num_gpus=1)
    chosen = windows(
        [two_models, again],
        num_gpus=1,
        selector={"model_name": "n"},
    )
    assert "no traffic" in chosen.refused[0].reason  # same readings twice: nothing finished
    with pytest.raises(WindowError, match="no time"):
        windows([parse_exposition(STREAM.exposition(1)), SCRAPES[1]], num_gpus=1)
    with pytest.raises(WindowError, match="no vLLM"):
        windows([parse_exposition("up 1", scraped_at_s=t) for t in (0, 1)], num_gpus=1)


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ('a{b="c} 1', "not closed"),
        ("a 1e" + "9" * 50, "characters"),
        ("a{" + ",".join(f'l{i}="x"' for i in range(40)) + "} 1", "more than 32 labels"),
        ("9a 1", "metric name"),
        ("a one", "not a number"),
        ("# scraped_at yesterday\na 1", "scraped_at"),
        ("\n" * 200_001, "more than 200,000 lines"),
        ("a 1\n" * 4 + "b" * 300 + " 1", "metric name is over"),
        ('a{b="' + "x" * 1001 + '"} 1', "over 1000 characters"),
        ('a{b="c",b="d"} 1', "each name once"),
        ("a{" + ",".join(f'l{i}="{"x" * 999}"' for i in range(101)) + "} 1", "at most 100,000"),
        ("a 1 2 3", "optional timestamp"),
        ("a 1_000", "not a number"),
    ],
)
def test_the_exposition_parser_is_bounded_and_names_the_line(text: str, reason: str) -> None:
    with pytest.raises(ExpositionError, match=reason):
        parse_exposition(text)


def test_the_exposition_parser_reads_times_escapes_and_specials() -> None:
    scrape = parse_exposition(
        '# scraped_at 2026-12-03T10:00:00Z\n# TYPE a counter\na_total{x="q\\"uote",y="b"} +Inf\n'
    )
    assert scrape.scraped_at_s == 1796292000.0
    (s,) = scrape.samples
    assert s.labels == (("x", 'q"uote'), ("y", "b")) and s.value == math.inf
    assert scrape.types == {"a": "counter"}
    assert parse_exposition("a 1 1796292000000\nb 2 1796292000000").scraped_at_s == 1796292000.0
    assert math.copysign(1, parse_exposition("a -0").samples[0].value) == -1  # not the int 0


def test_the_exposition_parser_is_prometheus_clients_and_names_the_line_it_refuses() -> None:
    # app.domain.prom_text feeds prometheus_client.parser.text_fd_to_metric_families its
    # sample lines one at a time (comments read apart): each sample keeps its own line.
    scrape = parse_exposition('# TYPE x counter\nx 1\n\n# HELP y h\ny{a="b"} 2\nx_total 3')
    assert [(s.name, s.value) for s in scrape.samples] == [("x", 1.0), ("y", 2.0), ("x_total", 3.0)]
    assert scrape.lines == [2, 5, 6] and scrape.types == {"x": "counter"}
    with pytest.raises(ExpositionError, match="line 3: label .c.'s value is not closed"):
        parse_exposition('a 1\n\nb{c="d} 2')


def test_sglang_and_older_vllm_names_are_read_too() -> None:
    renames = {
        "vllm:time_to_first_token_seconds": "sglang:time_to_first_token_seconds",
        "vllm:request_time_per_output_token_seconds": "sglang:inter_token_latency_seconds",
        "vllm:e2e_request_latency_seconds": "sglang:e2e_request_latency_seconds",
        "vllm:generation_tokens_total": "sglang:generation_tokens_total",
        "vllm:prompt_tokens_total": "sglang:prompt_tokens_total",
        "vllm:num_requests_running": "sglang:num_running_reqs",
    }

    def renamed(t: float, names: dict[str, str]) -> Scrape:
        text = STREAM.exposition(t)
        for old, new in names.items():
            text = text.replace(old, new)
        return parse_exposition(text, scraped_at_s=t)

    (sglang,) = windows([renamed(t, renames) for t in (300, 600)], num_gpus=1).points
    (vllm,) = windows([SCRAPES[5], SCRAPES[10]], num_gpus=1).points
    assert (sglang.output_tokens, sglang.histograms) == (vllm.output_tokens, vllm.histograms)
    assert sglang.names["tpot"] == "sglang:inter_token_latency_seconds" and sglang.per_token("tpot")
    older = {"vllm:request_time_per_output_token_seconds": "vllm:time_per_output_token_seconds"}
    (old,) = windows([renamed(t, older) for t in (300, 600)], num_gpus=1).points
    assert old.names["tpot"] == "vllm:time_per_output_token_seconds" and old.per_token("tpot")
    assert windows([renamed(t, renames) for t in (300, 600)], num_gpus=1).engine == "sglang"
