"""First load of Explore (20 sweeps × 32 points): every byte the server sends for the page, its
scripts and its stylesheets, asked through HTTP as a browser asks (bench.wall_client: its
`Accept-Encoding: gzip, deflate, br`). Judged on the issue's absolute 600 KB; the baseline is
the same bodies gzipped (what compression would send: issue 13)."""

from __future__ import annotations

import gzip
import re

from bench.common import Backend, Result, Scale, fresh_database, synthetic_sweeps_csv
from bench.served import serving
from bench.wall_client import fetch

LIMIT_KB = 600.0
ASSET = re.compile(r'<(?:script[^>]*\ssrc|link[^>]*\shref)="(/static/[^"]+)"')


def run(scale: Scale, found: list[Backend]) -> list[Result]:
    backend = found[0]  # the weight does not depend on the database
    assert backend.url is not None
    with serving(fresh_database(backend, "weight")) as served:
        ids = served.upload(synthetic_sweeps_csv(scale.explore_sweeps, scale.points_per_sweep))
        page = fetch(served.base, "/", {"sweep": ids, "ttft_ms": 300, "tpot_ms": 30})
        assert page.status == 200
        fetched = [page]
        for path in dict.fromkeys(ASSET.findall(page.body.decode())):
            asset = fetch(served.base, path, accept="*/*")
            assert asset.status == 200, path
            fetched.append(asset)
    sent = sum(f.wire_bytes for f in fetched) / 1024
    gzipped = sum(len(gzip.compress(f.body, 6)) for f in fetched) / 1024
    return [
        Result(
            f"Explore first load: HTML + {len(fetched) - 1} JS/CSS files as sent",
            "",
            sent,
            "KB",
            "same bodies gzip -6",
            gzipped,
            LIMIT_KB,
            judged="value",
        )
    ]
