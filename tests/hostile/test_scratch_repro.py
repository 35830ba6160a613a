from __future__ import annotations
import json
from fastapi.testclient import TestClient
from sqlalchemy.orm import Session
from tests.factories import post_files, MINIMAL
from tests.prom_stream import make_stream

STREAM = make_stream(n=200, duration_s=600)

def scrapes(times):
    return [("files", (f"m{i}.prom", STREAM.exposition(300 * i).replace("", "", 1).encode() if False else (f"# scraped_at {t}\n" + STREAM.exposition(300 * i)).encode(), "text/plain")) for i, t in enumerate(times)]

def show(tag, r):
    print(f"\n### {tag}: {r.status_code} {r.text[:300]}")

def test_repro(client: TestClient, session: Session, catalog: None) -> None:
    for t in (["1e15", "1e15+300", "1e15+600"], ["-1e11", "-1e11", "-1e11"], ["1e300"]*3):
        base = float(t[0].split("+")[0])
        ts = [repr(base + 300 * i) if base < 1e20 else t[0] for i in range(3)]
        r = client.post("/api/production", files=scrapes(ts), data={"deployment": f"d{t[0]}", "num_gpus": "4"})
        show(f"scrape {t[0]}", r)
        if r.status_code == 201:
            d = r.json()["deployment_id"]
            show("read", client.get(f"/api/production/{d}"))
            show("page", client.get(f"/production/{d}"))
    r = client.post("/api/pricing", json={"name": "own", "kind": "ownership", "capex_usd": 1000, "usd_per_gpu_hour": 2, "power_kw": 1, "pue": 1.2, "usd_per_kwh": 0.1, "cost_of_capital": 0.1})
    show("pricing no life", r)
    show("pricing list", client.get("/api/pricing"))
    r = client.post("/api/pricing", json={"name": "own2", "kind": "ownership", "capex_usd": 1.08e308, "life_years": 4, "power_kw": 1, "pue": 1.2, "usd_per_kwh": 0.1, "cost_of_capital": 0.1})
    show("pricing capex", r)
    r = client.post("/api/pricing", json={"name": "own3", "kind": "ownership", "capex_usd": 100, "life_years": 4, "power_kw": 7.9e307, "pue": 1.2, "usd_per_kwh": 7.1e307, "cost_of_capital": 0.1})
    show("pricing power", r)
    show("pricing list", client.get("/api/pricing"))
    show("pricing page", client.get("/pricing"))
    base = {"vendor": "v", "hardware": "H100", "value_tok_s": 100, "measures": "per_gpu", "token_basis": "output"}
    for k, v in (("value_tok_s", 5e-324), ("interactivity_tok_s_user", 1e308), ("isl", 2**40)):
        r = client.post("/api/claims", json={**base, k: v})
        show(f"claim {k}", r)
        if r.status_code == 201:
            c = r.json()["id"]
            show("audit", client.get(f"/api/claims/{c}/audit"))
            show("claim page", client.get(f"/claims/{c}"))
    doc = json.loads(open("/work/shared/fixtures/vllm/stellalee_openai-1.0qps-Qwen2.5-Coder-7B-Instruct-20260707-093920.json").read())
    text = json.dumps(doc).replace('"model_id": "', '"model_id": "\\ud800', 1)
    r = client.post("/api/sweeps", files=[("files", ("v.json", text.encode(), "application/json"))], data={"hardware": "H100", "num_gpus": "8"})
    show("surrogate json", r)
    r = post_files(client, ("mini.csv", MINIMAL))
    show("minimal", r)
    sid = r.json()["sweeps"][0]["id"] if r.status_code == 201 else 1
    r = client.patch(f"/api/sweeps/{sid}", content=b'{"model": "\\ud800"}', headers={"content-type": "application/json"})
    show("patch surrogate", r)
    r = post_files(client, ("trail.csv", MINIMAL + b"\n"))
    show("trailing blank", r)
    p = client.post("/api/pricing", json={"name": "r", "kind": "rental", "usd_per_gpu_hour": 2}).json()["id"]
    show("break-even", client.get(f"/api/pricing/{p}/break-even", params={"output_tok_s_per_gpu": 5e-324}))
    nan = (f"# scraped_at 1780000000\n" + STREAM.exposition(300)).replace('vllm:generation_tokens_total{engine="0",model_name="m"} ', 'vllm:generation_tokens_total{engine="0",model_name="m"} NaN #', 1)
    files = [("files", ("a.prom", (f"# scraped_at 1780000000\n" + STREAM.exposition(0)).encode(), "text/plain")), ("files", ("b.prom", nan.replace("# scraped_at 1780000000", "# scraped_at 1780000300").encode(), "text/plain"))]
    show("nan counter", client.post("/api/production", files=files, data={"deployment": "nan", "num_gpus": "4"}))
    lenan = (f"# scraped_at 1780000300\n" + STREAM.exposition(300)).replace('le="0.1"', 'le="NaN"')
    files = [("files", ("a.prom", (f"# scraped_at 1780000000\n" + STREAM.exposition(0)).replace('le="0.1"', 'le="NaN"').encode(), "text/plain")), ("files", ("b.prom", lenan.encode(), "text/plain"))]
    show("le nan", client.post("/api/production", files=files, data={"deployment": "lenan", "num_gpus": "4"}))
