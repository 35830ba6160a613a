"""Harness provenance: who ran the benchmark that made a sweep's numbers (issue 51).

Pure data: standard library only. A sweep's numbers come from an independent harness (MLPerf,
InferenceX, the user's own run of any tool) or from the vendor's own setup; a claim audit and
a comparison say which, since a vendor figure is a claim to check, not a baseline.
"""

from __future__ import annotations

from app.domain.columns import PROVENANCES

PROVENANCE_LABELS: dict[str, str] = {
    "independent": "independent harness",
    "vendor": "vendor's own setup",
}


def default_provenance(source_kind: str | None) -> str | None:
    """A vendor sweep's numbers are the vendor's; measured and public ones are an independent
    harness's; demo (synthetic) sweeps have none."""
    if source_kind == "vendor":
        return "vendor"
    if source_kind in ("measured", "public"):
        return "independent"
    return None


def provenance_text(harness: str | None, version: str | None, provenance: str | None) -> str:
    """'MLPerf Inference LoadGen v4.1 · independent harness'; 'unknown harness' when unsaid."""
    name = " ".join(p for p in (harness, version) if p) or "unknown harness"
    label = PROVENANCE_LABELS.get(provenance or "", "provenance unknown")
    return f"{name} · {label}"


def claim_provenance_text(harness: str | None, provenance: str | None) -> str:
    """A claim's: 'MLPerf Inference v5.1 · independent harness'; 'vendor's own setup' alone
    when no harness is named; 'provenance not stated' when neither is said."""
    label = PROVENANCE_LABELS.get(provenance or "")
    parts = [p for p in (harness, label) if p]
    if label is None:
        parts.append("provenance not stated")
    return " · ".join(parts)


def valid_provenance(value: str | None) -> bool:
    return value is None or value in PROVENANCES
