"""The selection carried through pages that do not show it (issue 47): Sweeps and Claims get the
sweeps, SLO, prices and accounting in their address from the nav of Explore, Compare, Plan and
History, use what applies (Sweeps marks the chosen sweeps, a claim's audit reads the SLO and
prices) and hand all of it on through their own nav, so Explore comes back as it was left."""

from __future__ import annotations

from dataclasses import dataclass
from urllib.parse import urlencode

from pydantic import ValidationError
from starlette.datastructures import QueryParams

from app.schemas.explore import ExploreQuery
from app.views import explore_state

# What the address may carry: the settings of explore_state.CARRIED, the sweeps and the preset.
CARRIED_KEYS = frozenset({*explore_state.CARRIED, "sweep", "picked", "preset", "pricing"})


@dataclass(frozen=True)
class Carried:
    """`query`: everything carried, for the nav; `settings`: the SLO, prices and accounting
    without the sweeps (a claim's audit picks its own sweeps); `sweeps`: the chosen ones."""

    query: str = ""
    settings: str = ""
    sweeps: tuple[int, ...] = ()
    pairs: tuple[tuple[str, str], ...] = ()  # `query` as fields, for a form's hidden inputs


def carried_from(params: QueryParams) -> Carried:
    """The selection this address carries, as Explore would read it; nothing when it carries
    none, or a value Explore would refuse (the page itself does not read it)."""
    data = {k: v for k, v in explore_state.query_data(params).items() if k in CARRIED_KEYS}
    if not data:
        return Carried()
    try:
        query = ExploreQuery.model_validate(data)
    except ValidationError:
        return Carried()
    preset = "" if query.preset in (None, "custom") else str(query.preset)
    sweeps = list(dict.fromkeys(query.sweep))
    picked = query.picked or bool(sweeps)
    every = explore_state.carried_pairs(query, preset, sweeps if picked else None)
    settings = explore_state.carried_pairs(query, preset, None)
    if query.preset is None:  # named none: the next page chooses as it would (its default)
        every, settings = ([p for p in pairs if p[0] != "preset"] for pairs in (every, settings))
    fields = tuple((k, str(v)) for k, v in every)
    return Carried(urlencode(every), urlencode(settings), tuple(sweeps), fields)
