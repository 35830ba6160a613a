"""GPU names as tools and people write them become catalog keys on every path, or stay as
typed with a warning naming the nearest keys and a link to add them."""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest
from bs4 import BeautifulSoup
from fastapi.testclient import TestClient
from sqlalchemy.orm import Session

from app.cli import main
from app.services.seed import SEED_DIR, seed
from app.settings import get_settings
from app.store import catalog
from app.store.models import PricingProfile, Sweep
from tests.conftest import FIXTURES
from tests.factories import post_files

# The names tools and people write, and the key each must become.
NAMES = [
    ("NVIDIA H100 80GB HBM3", "H100"),  # nvidia-smi on an H100 SXM
    ("NVIDIA-H100-80GB-HBM3", "H100"),  # llm-d accelerator.model
    ("H100-SXM5-80GB", "H100"),
    ("h100 sxm", "H100"),
    ("NVIDIA H100 PCIe", "H100PCIE"),  # its own entry, not the SXM part
    ("H100 PCIe", "H100PCIE"),
    ("NVIDIA H200", "H200"),
    ("h200 sxm", "H200"),
    ("NVIDIA B200", "B200"),
    ("HGX B200", "B200"),
    ("NVIDIA GB200", "GB200"),
    ("GB200 NVL72", "GB200"),
    ("AMD Instinct MI300X", "MI300X"),
    ("AMD Instinct MI325X", "MI325X"),
    ("mi355x", "MI355X"),
    ("RTX 4090", "RTX4090"),
    ("NVIDIA GeForce RTX 4090", "RTX4090"),
    ("NVIDIA L40S", "L40S"),
    ("NVIDIA A100-SXM4-80GB", "A100"),  # AIPerf / GenAI-Perf telemetry gpu_name
    ("a100", "A100"),
    # Vendor spellings people write (issue 47): size and form factor in either order.
    ("H100 80GB SXM", "H100"),
    ("H100-80GB-SXM", "H100"),
    ("H100 SXM 80GB", "H100"),
    ("H200 141GB SXM", "H200"),
    ("A100 80GB SXM", "A100"),
    ("A100-SXM4-40GB", "A100-40GB"),  # nvidia-smi on the 40 GB part: its own entry
    ("NVIDIA A100-SXM4-40GB", "A100-40GB"),
    ("A100 40GB", "A100-40GB"),
    ("A100-40GB-SXM4", "A100-40GB"),
    ("nvidia-tesla-a100", "A100-40GB"),  # GKE's A2 accelerator is the 40 GB A100
    ("NVIDIA GeForce RTX 4090 24GB", "RTX4090"),
    ("L40S 48GB", "L40S"),
]


@pytest.fixture
def hardware_catalog(session: Session, tmp_path: Path) -> None:
    """Only the hardware catalog of seed_data/."""
    shutil.copy(SEED_DIR / "hardware.csv", tmp_path / "hardware.csv")
    seed(session, tmp_path)
    session.commit()


def one_sweep_csv(hardware: str, name: str = "s") -> bytes:
    return (
        "sweep,hardware,num_gpus,concurrency,tpot_p50_ms,output_tok_s\n"
        f'{name},"{hardware}",8,1,10.0,100.0\n'
    ).encode()


@pytest.mark.parametrize(("typed", "key"), NAMES)
def test_each_name_tools_write_matches_its_catalog_key(
    session: Session, hardware_catalog: None, typed: str, key: str
) -> None:
    match = catalog.match_hardware(session, typed)
    assert (match.key, match.typed) == (key, typed)


def test_a_different_part_is_not_guessed_but_its_nearest_keys_are_named(
    session: Session, hardware_catalog: None
) -> None:
    nvl = catalog.match_hardware(session, "NVIDIA H100 NVL")
    assert nvl.key is None
    assert nvl.nearest[0] == "H100"
    # The PCIe A100 (250 W) is neither SXM entry: named, not guessed.
    a100_pcie = catalog.match_hardware(session, "NVIDIA A100-PCIE-40GB")
    assert a100_pcie.key is None and a100_pcie.nearest[0] == "A100"
    assert catalog.match_hardware(session, "TPU v5e").nearest == ()


def test_the_api_upload_stores_keys_and_says_what_it_matched(
    client: TestClient, session: Session, hardware_catalog: None
) -> None:
    response = post_files(
        client,
        ("a.csv", one_sweep_csv("NVIDIA H100 80GB HBM3", "a")),
        ("b.csv", one_sweep_csv("h200 sxm", "b")),
        ("c.csv", one_sweep_csv("H100", "c")),
    )
    assert response.status_code == 201, response.text
    assert response.json()["warnings"] == [
        "Hardware 'NVIDIA H100 80GB HBM3' → H100 (matched by catalog alias).",
        "Hardware 'h200 sxm' → H200 (matched by catalog name).",
    ]
    stored = {s.name: s.hardware for s in session.query(Sweep).all()}
    assert stored == {"a": "H100", "b": "H200", "c": "H100"}


def test_the_same_file_typed_two_ways_is_one_sweep(
    client: TestClient, session: Session, hardware_catalog: None
) -> None:
    first = post_files(client, ("a.csv", one_sweep_csv("NVIDIA H200")))
    again = post_files(client, ("a.csv", one_sweep_csv("H200")))
    assert (first.status_code, again.status_code) == (201, 200)
    assert again.json()["sweeps"][0]["id"] == first.json()["sweeps"][0]["id"]


def test_an_unknown_gpu_is_stored_as_typed_with_a_warning_and_an_offer_to_add_it(
    client: TestClient, session: Session, hardware_catalog: None
) -> None:
    response = post_files(client, ("a.csv", one_sweep_csv("NVIDIA H100 NVL")))
    assert response.status_code == 201, response.text
    [warning] = response.json()["warnings"]
    assert warning == (
        "Hardware 'NVIDIA H100 NVL' is not in the hardware catalog, so it was kept as typed "
        "(no catalog price, power or physics limit). Nearest keys: H100, H200, A100. "
        "Add it to the catalog: /catalog?new_hardware=NVIDIA+H100+NVL#hardware-form"
    )
    assert session.query(Sweep).one().hardware == "NVIDIA H100 NVL"
    # The offer opens the catalog form prefilled with the typed name as name and alias.
    page = BeautifulSoup(client.get("/catalog?new_hardware=NVIDIA+H100+NVL").text, "html.parser")
    form = page.select_one("#hardware-form form")
    assert form is not None and form["action"] == "/catalog/hardware"
    assert form.select_one("input[name=key]")["value"] == "NVIDIAH100NVL"
    assert form.select_one("input[name=name]")["value"] == "NVIDIA H100 NVL"
    assert form.select_one("textarea[name=aliases]").get_text() == "NVIDIA H100 NVL"


def test_a_real_aiperf_export_with_the_gpu_name_its_telemetry_writes_is_stored_as_a100(
    client: TestClient, session: Session, hardware_catalog: None
) -> None:
    path = FIXTURES / "aiperf" / "wellflat_k8s-dev_profile_export_aiperf.json"
    raw = path.read_bytes()
    telemetry = json.loads(raw)["telemetry_data"]
    names = {
        gpu["gpu_name"]
        for endpoint in telemetry["endpoints"].values()
        for gpu in endpoint["gpus"].values()
    }
    assert names == {"NVIDIA A100-SXM4-80GB"}
    response = post_files(client, (path.name, raw), hardware=names.pop(), num_gpus=1)
    assert response.status_code == 201, response.text
    assert response.json()["warnings"] == [
        "Hardware 'NVIDIA A100-SXM4-80GB' → A100 (matched by catalog alias)."
    ]
    assert session.query(Sweep).one().hardware == "A100"


def test_a_real_llm_d_report_names_its_accelerator_and_lands_on_h100(
    client: TestClient, session: Session, hardware_catalog: None
) -> None:
    path = FIXTURES / "llm-d" / "br_v0_2_example.yaml"
    response = post_files(client, (path.name, path.read_bytes()))
    assert response.status_code == 201, response.text
    assert {s.hardware for s in session.query(Sweep).all()} == {"H100"}


def test_the_preview_shows_the_matched_key_and_the_unmatched_offer(
    client: TestClient, hardware_catalog: None
) -> None:
    files = [
        ("files", ("a.csv", one_sweep_csv("NVIDIA H100 80GB HBM3", "a"), "text/csv")),
        ("files", ("b.csv", one_sweep_csv("Gaudi 3", "b"), "text/csv")),
    ]
    page = BeautifulSoup(client.post("/upload/preview", files=files).text, "html.parser")
    matched = page.select_one(".hardware-match[data-matched=true]")
    assert matched is not None
    assert matched.get_text(" ", strip=True) == (
        "Hardware: 'NVIDIA H100 80GB HBM3' → H100 (catalog alias)"
    )
    unmatched = page.select_one(".hardware-match[data-matched=false]")
    assert unmatched is not None and "Gaudi 3" in unmatched.get_text()
    link = unmatched.select_one("a")
    assert link is not None and link["href"] == "/catalog?new_hardware=Gaudi+3#hardware-form"
    shown = [dd.get_text(strip=True) for dd in page.select("dl.meta dd")]
    assert "H100" in shown and "Gaudi 3" in shown


def test_the_upload_form_field_is_matched_too(
    client: TestClient, session: Session, hardware_catalog: None
) -> None:
    bare = b"concurrency,tpot_p50_ms,output_tok_s\n1,10,100\n"
    fields = {"sweep": "form", "hardware": "AMD Instinct MI300X", "num_gpus": "8"}
    response = client.post(
        "/upload",
        files=[("files", ("x.csv", bare, "text/csv"))],
        data=fields,
        follow_redirects=False,
    )
    assert response.status_code == 303, response.text
    assert session.query(Sweep).one().hardware == "MI300X"


def test_patch_matches_the_new_hardware_and_the_page_flags_an_unknown_one(
    client: TestClient, session: Session, hardware_catalog: None
) -> None:
    sweep_id = post_files(client, ("a.csv", one_sweep_csv("H100"))).json()["sweeps"][0]["id"]
    edited = client.patch(f"/api/sweeps/{sweep_id}", json={"hardware": "NVIDIA B200"})
    assert edited.status_code == 200, edited.text
    assert (edited.json()["hardware"], edited.json()["warnings"]) == (
        "B200",
        ["Hardware 'NVIDIA B200' → B200 (matched by catalog key)."],
    )
    client.post(f"/sweeps/{sweep_id}/edit", data={"hardware": "h200 sxm"}, follow_redirects=False)
    assert client.get(f"/api/sweeps/{sweep_id}").json()["hardware"] == "H200"
    client.patch(f"/api/sweeps/{sweep_id}", json={"hardware": "RTX 5090"})
    page = BeautifulSoup(client.get(f"/sweeps/{sweep_id}").text, "html.parser")
    flag = page.select_one("#hardware-unmatched")
    assert flag is not None and "Nearest keys: RTX4090" in flag.get_text()


def test_claims_and_pricing_profiles_accept_tool_names_and_refuse_unknown_gpus(
    client: TestClient, session: Session, hardware_catalog: None
) -> None:
    claim = {
        "vendor": "Acme",
        "hardware": "NVIDIA H200",
        "value_tok_s": 100,
        "measures": "per_user",
        "token_basis": "output",
    }
    created = client.post("/api/claims", json=claim)
    assert created.status_code == 201, created.text
    assert created.json()["hardware"] == "H200"
    refused = client.post("/api/claims", json={**claim, "hardware": "H100 NVL"})
    assert refused.status_code == 422
    assert (
        "'H100 NVL' is not in the hardware catalog (nearest: H100, H200, A100)"
        in (refused.json()["detail"])
    )
    profile = {"name": "pcie", "kind": "rental", "hardware": "H100 PCIe", "usd_per_gpu_hour": 2}
    saved = client.post("/api/pricing", json=profile)
    assert saved.status_code == 201, saved.text
    assert saved.json()["hardware"] == "H100PCIE"
    page = client.post(
        "/pricing", data={**profile, "hardware": "nvidia h100 pcie"}, follow_redirects=False
    )
    assert page.status_code == 303
    session.expire_all()
    assert [p.hardware for p in session.query(PricingProfile).all()] == ["H100PCIE", "H100PCIE"]


def test_the_cli_import_matches_and_prints_the_warning(
    database_url: str,
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
    session: Session,
    hardware_catalog: None,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.setenv("PARETOSCOPE_DATABASE_URL", database_url)
    get_settings.cache_clear()
    bare = tmp_path / "bare.csv"
    bare.write_bytes(b"concurrency,tpot_p50_ms,output_tok_s\n1,10,100\n")
    run: Callable[..., int] = lambda *a: main([str(x) for x in a])  # noqa: E731
    try:
        assert (
            run("import", bare, "--hardware", "NVIDIA H100 80GB HBM3", "--gpus", 8, "--name", "n")
            == 0
        )
    finally:
        get_settings.cache_clear()
    err = capsys.readouterr().err
    assert err == "warning: Hardware 'NVIDIA H100 80GB HBM3' → H100 (matched by catalog alias).\n"
    session.expire_all()
    assert session.query(Sweep).one().hardware == "H100"


def test_the_upload_form_suggests_catalog_keys_for_the_hardware_field(
    client: TestClient, hardware_catalog: None
) -> None:
    bare = b"concurrency,tpot_p50_ms,output_tok_s\n1,10,100\n"
    staged = client.post("/upload/stage", files=[("files", ("x.csv", bare, "text/csv"))])
    page = BeautifulSoup(staged.text, "html.parser")
    field = page.select_one('input[name="s0.hardware"]')
    assert field is not None and field["list"] == "hardware-keys"
    keys = [o["value"] for o in page.select("#hardware-keys option")]
    assert keys[:5] == ["A100", "A100-40GB", "B200", "B300", "GB200"]
    assert "H100PCIE" in keys and len(keys) == 20


LLM_D = FIXTURES / "llm-d" / "br_v0_2_example.yaml"


@pytest.mark.parametrize(
    ("accelerator", "key"),
    [("NVIDIA-H100-80GB-HBM3", "H100"), ("NVIDIA H100 PCIe", "H100PCIE"), ("NVIDIA B200", "B200")],
)
def test_the_reports_accelerator_is_matched_to_its_own_catalog_entry_on_upload(
    client: TestClient, hardware_catalog: None, accelerator: str, key: str
) -> None:
    # A PCIe card must not borrow the SXM part's figures: no substring guess before the catalog.
    text = LLM_D.read_text().replace("NVIDIA-H100-80GB-HBM3", accelerator)
    files = [("files", (LLM_D.name, text.encode(), "application/octet-stream"))]
    response = client.post("/api/sweeps", files=files)
    assert response.status_code == 201, response.text
    [created] = response.json()["sweeps"]
    assert client.get(f"/api/sweeps/{created['id']}").json()["hardware"] == key


def test_the_roofline_api_takes_a_gpu_name_as_tools_write_it(
    client: TestClient, session: Session, tmp_path: Path
) -> None:
    for name in ("hardware.csv", "models.csv"):
        shutil.copy(SEED_DIR / name, tmp_path / name)
    seed(session, tmp_path)
    session.commit()
    model = catalog.model_specs(session)[0].key
    by_key = client.get("/api/roofline", params={"hardware": "H200", "model": model})
    by_name = client.get("/api/roofline", params={"hardware": "NVIDIA H200", "model": model})
    assert by_key.status_code == 200, by_key.text
    assert by_name.status_code == 200, by_name.text
    assert by_name.json()["inputs"]["hardware"] == "H200"
    assert by_name.json()["curve"] == by_key.json()["curve"]
