"""`make bench`: run every bench module and print ONE table; exit 1 when a verdict is missed.

    python -m bench                 # everything, full sizes
    python -m bench readoff imports # only these modules
    python -m bench --smoke         # tiny sizes (what tests/test_bench_smoke.py runs)
    python -m bench readoff --sweeps=10,100 --repeat=3   # override sizes of bench.common.Scale

    python -m bench calibration     # the check's error rates and the power estimate (no server)
    python -m bench load [SECONDS]  # only the load figure (8 uploaders x 32 readers, default 60 s)

Each module has `run(scale, backends) -> list[Result]`; add a module by adding it to MODULES.
The load figure (bench/load.py) runs after them, prints its details as it goes, and adds its
verdicts to the table.
"""

from __future__ import annotations

import signal
import sys
import time
from dataclasses import replace

from bench import (
    calibration,
    explore,
    imports,
    load,
    multipart,
    picker,
    points_growth,
    readoff,
    request_goodput_speed,
    scale,
    sessions,
    throughput,
    weight,
)
from bench.common import FULL, SMOKE, Result, backends

MODULES = {
    "readoff": readoff,
    "points": points_growth,
    "explore": explore,
    "imports": imports,
    "multipart": multipart,
    "weight": weight,
    "goodput": request_goodput_speed,
    "picker": picker,
    "throughput": throughput,
    "scale": scale,
    "sessions": sessions,
    "calibration": calibration,
}


def _num(value: float | None) -> str:
    if value is None:
        return "—"
    whole = float(value).is_integer()  # a count, such as the load figure's problems
    return f"{value:,.3f}" if abs(value) < 100 and not whole else f"{value:,.0f}"


def table(results: list[Result]) -> str:
    header = ["figure", "db", "value", "baseline", "ratio", "target", "verdict"]
    rows = [header]
    for r in results:
        target = f"{'≥' if r.at_least else '≤'} {r.target:g}{'×' if r.judged == 'ratio' else ''}"
        if r.judged == "value":
            target += f" {r.unit}"
        if r.or_value_at_least is not None:
            target += f" or ≥ {r.or_value_at_least:g} {r.unit}"
        verdict = r.verdict + (f" ({r.reason})" if r.reason else "")
        rows.append(
            [
                r.figure,
                r.backend or "—",
                f"{_num(r.value)} {r.unit}",
                "—" if r.baseline is None else f"{_num(r.baseline)} {r.unit} {r.baseline_name}",
                "—" if r.ratio is None else f"{r.ratio:,.2f}×",
                "—" if r.judged == "none" else target,
                verdict,
            ]
        )
    widths = [max(len(row[i]) for row in rows) for i in range(len(header))]
    lines = ["  ".join(cell.ljust(w) for cell, w in zip(row, widths, strict=True)) for row in rows]
    lines.insert(1, "  ".join("-" * w for w in widths))
    return "\n".join(lines)


def _exit_on_sigterm(signum: int, _frame: object) -> None:
    # `timeout` sends SIGTERM: exit through the `finally` that drops the scratch database.
    raise SystemExit(128 + signum)


def main(argv: list[str]) -> int:
    signal.signal(signal.SIGTERM, _exit_on_sigterm)
    scale = SMOKE if "--smoke" in argv else FULL
    for arg in argv:
        if arg.startswith("--") and "=" in arg:
            key, value = arg[2:].split("=", 1)
            numbers = tuple(int(v) for v in value.split(","))
            current = getattr(scale, key)
            given: object = numbers if isinstance(current, tuple) else numbers[0]
            scale = replace(scale, **{key: given})  # type: ignore[arg-type]
    words = [a for a in argv if not a.startswith("--")]
    seconds = [float(w) for w in words if w.replace(".", "", 1).isdigit()]
    names = [w for w in words if not w.replace(".", "", 1).isdigit()] or [*MODULES, "load"]
    run_load = "load" in names
    names = [n for n in names if n != "load"]
    unknown_names = [n for n in names if n not in MODULES]
    if unknown_names:
        print(f"unknown bench {unknown_names}; choose from {list(MODULES)}", file=sys.stderr)
        return 2
    results: list[Result] = []
    with backends() as found:
        for name in names:
            start = time.perf_counter()
            results.extend(MODULES[name].run(scale, found))
            print(f"[{name}: {time.perf_counter() - start:.1f} s]", file=sys.stderr)
    if run_load and scale is FULL:
        # Its details print as it runs; its verdicts join the one table.
        reports = load.run(seconds=seconds[0] if seconds else 60.0)
        for report in reports:
            results.extend(report.results())
        if not any(r.label.startswith("postgres") for r in reports):
            results.append(load.not_measured("Postgres", "no Postgres server answered"))
    if results:
        print(table(results))
        print(
            "\nMachine: shared with other jobs; ratios compare figures measured in this same run.",
        )
    return 1 if any(r.verdict == "MISSED" for r in results) else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
