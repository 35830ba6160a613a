"""First load of Explore (20 sweeps × 32 points): every byte the server sends for the page, its
scripts and its stylesheets, asked with Accept-Encoding: gzip. Judged on the issue's absolute
600 KB; the baseline is the same bodies gzipped (what compression would send: issue 13)."""

from __future__ import annotations

import gzip
import re

from bench.common import Backend, Result, Scale, client_for, fresh_database, synthetic_sweeps_csv
from bench.common import upload as upload_sweeps

LIMIT_KB = 600.0
ASSET = re.compile(r'<(?:script[^>]*\ssrc|link[^>]*\shref)="(/static/[^"]+)"')


def run(scale: Scale, found: list[Backend]) -> list[Result]:
    backend = found[0]  # the weight does not depend on the database
    assert backend.url is not None
    client = client_for(fresh_database(backend, "weight"))
    ids = upload_sweeps(client, synthetic_sweeps_csv(scale.explore_sweeps, scale.points_per_sweep))
    headers = {"Accept-Encoding": "gzip"}
    page = client.get("/", params={"sweep": ids, "ttft_ms": 300, "tpot_ms": 30}, headers=headers)
    assert page.status_code == 200
    responses = [page]
    for path in dict.fromkeys(ASSET.findall(page.text)):
        response = client.get(path, headers=headers)
        assert response.status_code == 200, path
        responses.append(response)
    client.__exit__(None, None, None)
    sent = sum(r.num_bytes_downloaded for r in responses) / 1024
    gzipped = sum(len(gzip.compress(r.content, 6)) for r in responses) / 1024
    return [
        Result(
            f"Explore first load: HTML + {len(responses) - 1} JS/CSS files as sent",
            "",
            sent,
            "KB",
            "same bodies gzip -6",
            gzipped,
            LIMIT_KB,
            judged="value",
        )
    ]
