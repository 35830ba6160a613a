"""An upload's code run once as the server starts, on two tiny files, so the first real upload
after a start does not pay for it: the importers' first run (polars' CSV reader, the canonical
and per-request importers), the content hash and the sample blocks' encoder. Nothing is stored:
the database is not touched.
"""

from __future__ import annotations

from app.ingest import UploadFile, parse_upload_files
from app.store import samples as sample_store

# The shapes most uploads take: a canonical points file and its per-request file.
POINTS_CSV = (
    b"sweep,hardware,num_gpus,concurrency,duration_s,tpot_p50_ms,output_tok_s\n"
    b"warm-up,H100,8,1,60,10.5,1000\n"
    b"warm-up,H100,8,2,60,11.5,2000\n"
)
REQUESTS_CSV = (
    b"sweep,concurrency,ttft_ms,e2el_ms,output_len,input_len,ok\n"
    b"warm-up,1,100.5,900.25,64,1024,true\n"
    b"warm-up,1,120.5,950.75,80,1024,true\n"
    b"warm-up,2,150,,,1024,false\n"
    b"warm-up,2,160.5,1200.5,70,1024,true\n"
)


def warm() -> tuple[int, int]:
    """Parse, hash and encode the two files as an upload would; how many sweeps were parsed
    and how many sample bytes encoded."""
    files = [UploadFile("points.csv", POINTS_CSV), UploadFile("requests.csv", REQUESTS_CSV)]
    sweeps = parse_upload_files(files, {}, require_meta=False).sweeps
    encoded = 0
    for sweep in sweeps:
        sweep.content_hash()
        points = enumerate(sweep.points)
        frames = [(i, p.samples_frame(any_int_width=True)) for i, p in points if p.sample_count]
        for pieces in sample_store.plans(frames):  # as an upload's blocks are encoded
            encoded += len(sample_store.encode(pieces))
    return len(sweeps), encoded
