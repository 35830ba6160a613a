"""History's JSON twin: per configuration, each sweep's date, goodput and costs."""

from __future__ import annotations

from typing import Literal

from app.schemas.answers.common import Answer, Difference, PlotlyFigure
from app.schemas.answers.readoff import SessionsOut, TurnsOut


class HistoryConfig(Answer):
    hardware: str
    num_gpus: int
    model: str | None
    engine: str | None
    precision: str | None
    isl: int | None
    osl: int | None
    workload: str | None
    # A multi-turn run's scenario (null: fixed-length); "mixed" when allow_different joined them.
    scenario: str | None = None


class CheckMark(Answer):
    """A stored check of this sweep: a regression within one configuration, or (listed as a
    comparison) one against another system, with what differs."""

    check_id: int
    baseline_sweep_id: int
    baseline_ref: str
    created_at: str | None
    headline: str
    same_configuration: bool
    differences: list[Difference]


class RepeatedRuns(Answer):
    """Several runs at one load: the [min, max] of each axis."""

    load: float
    runs: int
    tok_s_per_gpu: tuple[float | None, float | None]
    interactivity_tok_s_user: tuple[float | None, float | None]


class HistorySweep(Answer):
    """`costs` and `cost_reasons` per price column, in the order of `price_columns`."""

    sweep_id: int
    name: str
    date: str | None
    date_source: Literal["measured", "unknown"]
    uploaded: str | None
    goodput_tok_s_per_gpu: float | None
    goodput_statistic: str | None
    best_run_tok_s_per_gpu: float | None
    reason: str | None
    costs: list[float | None]
    cost_reasons: list[str | None]
    regressions: list[CheckMark]
    comparisons: list[CheckMark]
    repeated_runs: list[RepeatedRuns]
    # Multi-turn runs (issue 49): sessions and TTFT by turn at the operating point, and the
    # E2E-normalized interactivity there (null where samples were not read).
    scenario: str | None = None
    sessions: SessionsOut | None = None
    turns: TurnsOut | None = None
    e2e_interactivity_tok_s_user: float | None = None


class ConfigurationHistory(Answer):
    config: HistoryConfig
    label: str
    sweeps: list[HistorySweep]


class HistoryAnswer(Answer):
    query: str
    configurations: list[ConfigurationHistory]
    price_columns: list[str]
    figure: PlotlyFigure
    sessions_figure: PlotlyFigure | None = None
    e2e_figure: PlotlyFigure | None = None
