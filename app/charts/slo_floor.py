"""The SLO's interactivity floor on the Pareto chart: a shaded band and a dotted line.

On a log x axis Plotly takes shape positions as data values but annotation positions as log10
values; the band, line and label are placed accordingly, and the band starts at the left edge
of the fitted x range, so it neither stretches the axis nor falls outside it.
"""

from __future__ import annotations

import math
from typing import Any

from app.charts.ranges import Box
from app.domain.numbers import fmt_load, fmt_number
from app.services.analysis import Params

FLOOR_COLOUR = "#D55E00"


def slo_floor_x(params: Params) -> float | None:
    """The SLO's minimum interactivity (tok/s/user), or None when it sets none."""
    floor = params.slo.min_tok_s_user
    return floor if floor is not None and 0 < floor < math.inf else None


def add_slo_floor(layout: dict[str, Any], params: Params, box: Box) -> None:
    """Shade interactivities below the SLO's minimum (from its TPOT limit).

    The x axis is 1000 / TPOT at the axis statistic; the band is only the pass boundary when
    the TPOT limit is checked at that same statistic. Otherwise only a labelled line is drawn,
    saying which statistic it bounds, so points right of it are not mistaken for passing.
    """
    slo = params.slo
    floor = slo_floor_x(params)
    if floor is None:
        return
    limit_stat = slo.stat("tpot")
    same = limit_stat == params.stat
    if same:
        layout["shapes"].append(
            {
                "type": "rect",
                "name": "slo-band",
                "xref": "x",
                "yref": "paper",
                "x0": box.x0,  # data values, on log axes too
                "x1": floor,
                "y0": 0,
                "y1": 1,
                "fillcolor": "rgba(213, 94, 0, 0.08)",
                "line": {"width": 0},
                "layer": "below",
            }
        )
    layout["shapes"].append(
        {
            "type": "line",
            "name": "slo-floor",
            "xref": "x",
            "yref": "paper",
            "x0": floor,
            "x1": floor,
            "y0": 0,
            "y1": 1,
            "line": {"color": FLOOR_COLOUR, "width": 1.5, "dash": "dot"},
        }
    )
    text = f"SLO: ≥ {fmt_number(floor)} tok/s/user ({limit_stat} TPOT ≤ {fmt_load(slo.tpot_ms)} ms)"
    if not same:
        text += (
            f"<br>limit on {limit_stat} TPOT; this axis is {params.stat} TPOT,"
            "<br>so the line is not the pass boundary (no shading)"
        )
        layout["margin"]["t"] = 60  # room for the three-line label above the plot
    layout["annotations"].append(
        {
            "name": "slo-floor-label",
            "xref": "x",
            "yref": "paper",
            "x": math.log10(floor) if box.log_x else floor,  # annotations: log10 on log axes
            "y": 1,
            "yanchor": "bottom",
            # Right of the line unless the line sits in the right half of the axis.
            "xanchor": "right" if box.x_fraction(floor) > 0.5 else "left",
            "showarrow": False,
            "font": {"size": 11, "color": "#A04000"},
            "text": text,
        }
    )
