"""Covariates of a comparison (issue 37): hand-made pairs at each warning's threshold."""

from __future__ import annotations

from app.domain.covariates import Covariates, point_covariates, spec_method, summarise, warnings

BASE = Covariates("B", 16, spec_decode="eagle", acceptance_rate=0.70, prefix_cache_hit_rate=0.50)


def kinds(a: Covariates, b: Covariates = BASE) -> list[str]:
    return [w.kind for w in warnings(a, b)]


def test_alike_systems_raise_nothing_and_the_thresholds_are_strict() -> None:
    # 0.77 is exactly 10 % above 0.70 and 0.60 exactly 10 points above 0.50: not beyond.
    alike = Covariates(
        "A", 16, spec_decode="EAGLE", acceptance_rate=0.77, prefix_cache_hit_rate=0.60
    )
    assert kinds(alike) == []


def test_method_acceptance_and_cache_differences_each_warn_that_the_data_decides() -> None:
    a = Covariates("A", 16, spec_decode="mtp", acceptance_rate=0.56, prefix_cache_hit_rate=0.90)
    found = warnings(a, BASE)
    assert [w.kind for w in found] == ["spec_method", "acceptance", "prefix_cache"]
    assert all("depends on the data" in w.text for w in found)
    assert "Acceptance rates differ by 20% relative (56% vs 70%)" in found[1].text
    assert "Prefix-cache hit rates differ by 40 points (90% vs 50%)" in found[2].text
    # Not stated on one side: nobody can say they differ.
    assert kinds(Covariates("A", 16)) == []


def test_an_equal_gpu_count_with_another_split_is_said_and_spec_off_reads_none() -> None:
    disagg = Covariates("D", 16, 8, 8, spec_decode="eagle")
    [split] = warnings(disagg, Covariates("G", 16, spec_decode="eagle"))
    assert split.kind == "split"
    assert "Both have 16 GPUs in total" in split.text and "disaggregated (8P + 8D)" in split.text
    assert kinds(Covariates("A", 8, 4, 4, spec_decode="eagle")) == []  # unequal counts
    assert [spec_method(t) for t in (None, " ", "None", "off", "MTP")] == [
        None, None, "none", "none", "mtp",
    ]  # fmt: skip


def test_point_figures_are_averaged_over_the_points_that_report_them() -> None:
    rows = [point_covariates({"spec_acceptance_rate": "0.5", "other": 1}), {}]
    rows.append(point_covariates({"spec_acceptance_rate": 0.7, "prefix_cache_hit_rate": True}))
    summary = summarise(Covariates("A", 8), rows)
    assert summary.acceptance_rate == 0.6
    assert summary.prefix_cache_hit_rate is None  # a bool is not a rate
