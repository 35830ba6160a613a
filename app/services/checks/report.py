"""A check's answer as words: one headline, a markdown summary for a pull-request comment, and
plain text for a CI log. Everything comes from the check's JSON document, so all three agree."""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any
from xml.etree import ElementTree

from app.domain.numbers import fmt_load, fmt_number, fmt_percent, fmt_usd

QUOTE = "'"
BASIS = {"output": "output", "total": "total", "input": "input"}


def _slo_moved(f: Mapping[str, Any]) -> str:
    """A failed SLO finding in a headline: no longer met, or borderline by its runs."""
    if f["label"] == "meets SLO":
        return "SLO no longer met"
    note: str = f["note"]
    return note.split("; a borderline point")[0]


def headline(doc: Mapping[str, Any]) -> str:
    """`regression: goodput -20.0 %, $/Mtok ($2/GPU-hour) +25.0 %` or `pass: …`."""
    moved = [
        _slo_moved(f) if f["figure"] == "meets_slo" else f"{_label(f)} {_change(f)}".rstrip()
        for f in doc["findings"]
        if f["regression"]
    ]
    alone = _tolerance_alone(doc)
    if doc["verdict"] == "regression":
        return "regression: " + ", ".join(moved) + (f" ({alone})" if alone else "")
    if doc["verdict"] == "comparison":
        return comparison_headline(doc)
    tolerance = _pct(doc["tolerance"])
    said = "; ".join(x for x in (_goodput_move(doc), alone) if x)
    return f"pass: no regression beyond {tolerance}" + (f" ({said})" if said else "")


def _tolerance_alone(doc: Mapping[str, Any]) -> str:
    """Why the goodput (or the frontier) was judged on the tolerance alone (no ratio interval,
    no band), e.g. one run a side in percentile mode; "" when its ratio has an interval."""
    for f in doc["findings"]:
        ratio = f.get("ratio")
        figure = f["figure"] in ("goodput_tok_s_per_gpu", "frontier")
        if figure and ratio and ratio.get("ci_low") is None:
            return str(ratio.get("ci_reason") or "no ratio interval: the tolerance alone decides")
    return ""


def comparison_headline(doc: Mapping[str, Any]) -> str:
    """`comparison (hardware differs: H200 vs H100): goodput -10.4 %, …`: what moved between
    two configurations, never called a regression."""
    moved = [
        f"{_label(f)} {_change(f)}".rstrip()
        for f in doc["findings"]
        if f["figure"] != "meets_slo" and f["change"] is not None
    ]
    slo = next((f for f in doc["findings"] if f["figure"] == "meets_slo"), None)
    if slo is not None and slo["baseline"] != slo["candidate"]:
        moved.insert(0, "SLO no longer met" if slo["baseline"] else "SLO now met")
    return f"comparison ({differences_text(doc)})" + (f": {', '.join(moved)}" if moved else "")


def differences_text(doc: Mapping[str, Any]) -> str:
    """Every difference between candidate and baseline, in one line."""
    return "; ".join(d["text"] for d in doc.get("differences") or [])


def markdown(doc: Mapping[str, Any]) -> str:
    """A short summary fit for a pull-request comment."""
    verdict = {"regression": "**regression**", "comparison": "comparison, not a regression"}
    cand, base = doc["candidate"], doc["baseline"]
    lines = [
        f"### Paretoscope check: {verdict.get(doc['verdict'], 'pass')}",
        "",
        f"Candidate {_who(cand, '**')} against baseline {_who(base, '**')}.",
        *_likeness_lines(doc, "**"),
        f"SLO: {doc['slo']['description']} ({doc['slo']['mode']} mode); "
        f"tolerance {_pct(doc['tolerance'])}{_scope(doc)}.",
        "",
        "| | baseline | candidate | change | verdict |",
        "| --- | ---: | ---: | ---: | --- |",
    ]
    for f in doc["findings"]:
        mark = "**regression**" if f["regression"] else _state(f, doc)
        cells = (_label(f, doc), _value(f, "baseline"), _value(f, "candidate"), _change(f))
        lines.append(_row(*cells, f"{mark}: {f['note']}"))
    lines.append(_row("operating point", _operating_point(base), _operating_point(cand), "", ""))
    lines += ["", f"[Open in Compare]({doc['compare_url']})", ""]
    return "\n".join(lines)


def text(doc: Mapping[str, Any]) -> str:
    """The same, as plain lines for a CI log."""
    cand, base = doc["candidate"], doc["baseline"]
    lines = [
        f"check: {doc['verdict'].upper()}",
        f"candidate: {_who(cand, quote=QUOTE)}",
        f"baseline:  {_who(base, quote=QUOTE)}",
        *_likeness_lines(doc),
        f"SLO: {doc['slo']['description']} ({doc['slo']['mode']} mode); "
        f"tolerance {_pct(doc['tolerance'])}{_scope(doc)}",
    ]
    for f in doc["findings"]:
        state = "REGRESSION" if f["regression"] else _state(f, doc)
        change = f" ({_change(f)})" if _change(f) else ""
        lines.append(
            f"{_label(f, doc)}: {_value(f, 'baseline')} -> {_value(f, 'candidate')}{change}"
            f" {state}: {f['note']}"
        )
    lines.append(f"operating point: {_operating_point(base)} -> {_operating_point(cand)}")
    lines.append(f"compare: {doc['compare_url']}")
    return "\n".join(lines) + "\n"


def _scope(doc: Mapping[str, Any]) -> str:
    """The frontier scope and its share, said after the tolerance (the SLO scope says nothing)."""
    if doc.get("scope") != "frontier":
        return ""
    return f"; scope frontier: below the baseline's band over ≥ {_pct(doc['share'])} of the range"


def junit(doc: Mapping[str, Any]) -> str:
    """JUnit XML for CI systems that read it: one test case per criterion (finding), failed
    when it is a regression; the markdown summary as the suite's system-out."""
    cases = doc["findings"]
    failed = [f for f in cases if f["regression"]]
    suite = ElementTree.Element(
        "testsuite",
        name="paretoscope check",
        tests=str(len(cases)),
        failures=str(len(failed)),
        errors="0",
        skipped=str(sum(1 for f in cases if _state(f, doc) == "unknown")),
    )
    for f in cases:
        case = ElementTree.SubElement(
            suite, "testcase", classname=f"paretoscope.check.{doc.get('scope', 'slo')}",
            name=_label(f, doc),
        )  # fmt: skip
        detail = (
            f"{_value(f, 'baseline')} -> {_value(f, 'candidate')}"
            + (f" ({_change(f)})" if _change(f) else "")
            + f": {f['note']}"
        )
        if f["regression"]:
            failure = ElementTree.SubElement(case, "failure", message=f"regression: {f['note']}")
            failure.text = detail
        elif _state(f, doc) == "unknown":
            ElementTree.SubElement(case, "skipped", message=f["note"])
        else:
            ElementTree.SubElement(case, "system-out").text = detail
    ElementTree.SubElement(suite, "system-out").text = doc.get("summary") or ""
    ElementTree.indent(suite)
    body = ElementTree.tostring(suite, encoding="unicode")
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + body + "\n"


def _likeness_lines(doc: Mapping[str, Any], strong: str = "") -> list[str]:
    """What differs between the two (and a demo or mock source), before any figure."""
    listed = doc.get("differences") or []
    # Split, speculative decoding and prefix caching that differ (issue 37).
    caveats = [f"Warning: {c['text']}" for c in doc.get("caveats") or []]
    if not listed:
        return caveats
    if doc["verdict"] == "comparison":
        lead = f"{strong}Not one configuration{strong}: {differences_text(doc)}."
        return [lead + " What moved compares two systems; it is not a regression.", *caveats]
    return [f"Note: {differences_text(doc)}.", *caveats]


def _state(f: Mapping[str, Any], doc: Mapping[str, Any]) -> str:
    """unknown for a figure one side has not (its note says why); otherwise ok, or comparison
    when the two are not one configuration."""
    unknown = f["figure"] != "meets_slo" and (f["baseline"] is None or f["candidate"] is None)
    if unknown:
        return "unknown"
    return "comparison" if doc["verdict"] == "comparison" else "ok"


def _row(*cells: str) -> str:
    return "|" + "|".join(f" {c} " if c else " " for c in cells) + "|"


def _who(side: Mapping[str, Any], strong: str = "", quote: str = "`") -> str:
    ref = f"{quote}{side['ref']}{quote}"
    how = {"id": "", "tag": f"tag {ref}: ", "name": f"name {ref}: "}
    by = how[side["resolved_by"]]
    return f"{strong}{side['name']}{strong} ({by}sweep {side['sweep_id']})"


def _label(f: Mapping[str, Any], doc: Mapping[str, Any] | None = None) -> str:
    if f["figure"] == "goodput_tok_s_per_gpu":
        basis = doc["slo"]["basis"] if doc else "output"
        # "goodput", or "goodput at load 4" where the operating point moved within noise
        return f"{f['label']} ({BASIS.get(basis, basis)} tok/s/GPU)" if doc else f["label"]
    if f["figure"] == "usd_per_mtok":
        return f"$/Mtok ({f['label']})"
    if f["figure"] == "frontier":
        return "frontier (mean tok/s/GPU over the shared range)"
    return "meets SLO"


def _value(f: Mapping[str, Any], side: str) -> str:
    value = f[side]
    if f["figure"] == "meets_slo":
        return "yes" if value else "no"
    if value is None:
        return "–"
    write = fmt_usd if f["figure"] == "usd_per_mtok" else fmt_number
    shown = write(value)
    iv = f[f"{side}_interval"]
    if iv is None:
        return shown
    level = f"{fmt_percent(iv['ci_level'])} " if iv.get("ci_level") else ""
    method = f", {iv['ci_method']}" if iv.get("ci_method") else ""
    return f"{shown} ({level}CI {write(iv['ci_low'])}–{write(iv['ci_high'])}{method})"


def _change(f: Mapping[str, Any]) -> str:
    change = f.get("change")
    if change is None:
        return ""
    return f"{'+' if change > 0 else ''}{fmt_percent(change)}"


def _pct(fraction: float) -> str:
    return fmt_percent(fraction)


def _goodput_move(doc: Mapping[str, Any]) -> str:
    for f in doc["findings"]:
        if f["figure"] == "goodput_tok_s_per_gpu" and f["change"] is not None:
            return f"goodput {_change(f)}"
    return ""


def _operating_point(side: Mapping[str, Any]) -> str:
    op = side.get("operating_point")
    if not op:
        return "none (no point meets the SLO)"
    if op.get("concurrency") is not None:
        load = f"concurrency {fmt_load(op['concurrency'])}"
    elif op.get("request_rate") == "inf":
        load = "unlimited request rate"
    elif op.get("request_rate") is not None:
        load = fmt_load(op["request_rate"], "req/s")
    else:
        load = f"point {op.get('point_id')}"
    x = op.get("interactivity_tok_s_user")
    if x is None or (isinstance(x, float) and not math.isfinite(x)):
        return load
    return f"{load}, {fmt_number(x, 'tok/s/user')}"
