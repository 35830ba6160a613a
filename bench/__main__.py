"""Run every benchmark and print one line per target: measured, baseline, ratio, verdict.

`python -m bench` runs the speed and size targets, then the load figure (about 4 minutes);
`python -m bench speed` or `python -m bench load [SECONDS]` runs one part.
"""

from __future__ import annotations

import sys

from bench import explore_size, import_speed, load, readoff_speed, request_goodput_speed


def speed() -> int:
    results = [
        *readoff_speed.run(),
        *request_goodput_speed.run(),
        *explore_size.run(),
        *import_speed.run(),
    ]
    width = max(len(r.name) for r in results)
    failed = 0
    for r in results:
        verdict = "ok" if r.ok else "MISSED"
        failed += not r.ok
        print(
            f"{r.name:<{width}}  {r.value:>12,.3f} {r.unit:<3}  target ≤ {r.target:,.3f}  "
            f"baseline {r.baseline_name} {r.baseline:,.3f} {r.unit}  "
            f"ratio {r.ratio:,.2f}×  {verdict}",
            flush=True,
        )
    return failed


def main(argv: list[str]) -> int:
    part = argv[0] if argv else "all"
    failed = 0
    if part in ("all", "speed"):
        failed += speed()
    if part in ("all", "load"):
        seconds = float(argv[1]) if len(argv) > 1 else 60.0
        failed += sum(not r.ok for r in load.run(seconds=seconds))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
