"""The catalog as Explore reads it on every request, kept per process while it is unchanged.

SLO presets, model specs, pricing profiles, vendor claims and hardware (with its all-in power)
are five queries whose answer changes only when someone edits the catalog. Triggers (migration
0011) renew `catalog_version.token` in the transaction of any change to those tables, whoever
makes it (a request, another replica, a seed, psql), so a request reads that one row and, when
the token is the one kept, takes the kept catalog.

What is kept is never older than its token: the token is read first, the tables after it. A
change committed in between gives a newer catalog under the older token, which the next request
replaces (its token differs). An uncommitted change in the reading transaction is kept under a
token that a rollback takes back, so it is never taken again.

The rows are ORM objects loaded by a session of their own and then detached: every attribute is
loaded, nothing lazy is left, and they are shared by every request of the process. Read only:
a page that edits the catalog loads its rows from its own session, as before.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, TypeVar

from sqlalchemy import select
from sqlalchemy.orm import Session

from app.store import catalog, claims, pricing
from app.store.models import (
    CatalogVersion,
    Hardware,
    ModelSpec,
    PricingProfile,
    SloPreset,
    VendorClaim,
)
from app.store.versions import KeptUnder, Versions

T = TypeVar("T")


@dataclass(frozen=True)
class Catalog:
    token: str
    slo_presets: tuple[SloPreset, ...]  # by key
    model_specs: tuple[ModelSpec, ...]  # by key
    profiles: tuple[PricingProfile, ...]  # as pricing.list_profiles orders them
    claims: tuple[VendorClaim, ...]  # as claims.list_claims orders them
    hardware: tuple[Hardware, ...]  # by key
    allin_kw: dict[str, float]  # all-in kW per GPU by lower-cased hardware key
    # Values derived from this catalog alone (e.g. the price sets), made once per catalog.
    _derived: dict[str, Any] = field(default_factory=dict, compare=False, repr=False)

    def derived(self, name: str, make: Callable[[Catalog], T]) -> T:
        """`make(self)`, made once for this catalog (a race makes it twice, the same)."""
        try:
            value: T = self._derived[name]
        except KeyError:
            value = self._derived[name] = make(self)
        return value

    def hardware_row(self, key: str | None) -> Hardware | None:
        """The hardware row `key` names, as `catalog.hardware_by_key` finds it."""
        return catalog.hardware_in(self.hardware, key)

    def model_spec(self, text: str | None) -> ModelSpec | None:
        """The model spec `text` names, as `catalog.match_model_spec` finds it."""
        return catalog.model_spec_in(self.model_specs, text)


_kept: KeptUnder[Catalog] = KeptUnder()


def current(session: Session, versions: Versions | None = None) -> Catalog:
    """The catalog as this session's transaction sees it now: one query while it is the one
    kept, the five lists when not. Read it once per request and hand it on. `versions`, when
    the caller read them in this transaction already, spare the query for the token."""
    if versions is None:
        token = session.scalar(select(CatalogVersion.token).where(CatalogVersion.id == 1))
    else:
        token = versions.catalog
    found = _kept.get(session, token)
    if found is None:
        found = _load(session, token or "")
        _kept.put(session, token, found)
    return found


def _load(session: Session, token: str) -> Catalog:
    """Every catalog list, read in the caller's transaction by a session of its own (so the
    caller's session is left as it was) and detached when that session closes."""
    with Session(bind=session.connection(), expire_on_commit=False) as loader:
        hardware = tuple(catalog.hardware_rows(loader))
        return Catalog(
            token=token,
            slo_presets=tuple(catalog.slo_presets(loader)),
            model_specs=tuple(catalog.model_specs(loader)),
            profiles=tuple(pricing.list_profiles(loader)),
            claims=tuple(claims.list_claims(loader)),
            hardware=hardware,
            allin_kw=pricing.allin_kw_of((h.key, h.allin_kw) for h in hardware),
        )
