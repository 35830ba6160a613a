"""The TypedDicts of app.schemas.answers.history: written by tools/answer_types.py."""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal, NotRequired, TypedDict

if TYPE_CHECKING:
    from app.schemas.answers.typed.common import DifferenceDict, PlotlyFigureDict
    from app.schemas.answers.typed.readoff import SessionsOutDict, TurnsOutDict


class HistoryConfigDict(TypedDict):
    """app.schemas.answers.history.HistoryConfig"""

    hardware: str
    num_gpus: int
    model: str | None
    engine: str | None
    precision: str | None
    isl: int | None
    osl: int | None
    workload: str | None
    scenario: NotRequired[str | None]


class CheckMarkDict(TypedDict):
    """app.schemas.answers.history.CheckMark"""

    check_id: int
    baseline_sweep_id: int
    baseline_ref: str
    created_at: str | None
    headline: str
    same_configuration: bool
    differences: list[DifferenceDict]


class RepeatedRunsDict(TypedDict):
    """app.schemas.answers.history.RepeatedRuns"""

    load: float
    runs: int
    tok_s_per_gpu: tuple[float | None, float | None]
    interactivity_tok_s_user: tuple[float | None, float | None]


class HistorySweepDict(TypedDict):
    """app.schemas.answers.history.HistorySweep"""

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
    regressions: list[CheckMarkDict]
    comparisons: list[CheckMarkDict]
    repeated_runs: list[RepeatedRunsDict]
    scenario: NotRequired[str | None]
    sessions: NotRequired[SessionsOutDict | None]
    turns: NotRequired[TurnsOutDict | None]
    e2e_interactivity_tok_s_user: NotRequired[float | None]


class ConfigurationHistoryDict(TypedDict):
    """app.schemas.answers.history.ConfigurationHistory"""

    config: HistoryConfigDict
    label: str
    sweeps: list[HistorySweepDict]


class HistoryAnswerDict(TypedDict):
    """app.schemas.answers.history.HistoryAnswer"""

    query: str
    configurations: list[ConfigurationHistoryDict]
    price_columns: list[str]
    figure: PlotlyFigureDict
    sessions_figure: NotRequired[PlotlyFigureDict | None]
    e2e_figure: NotRequired[PlotlyFigureDict | None]
