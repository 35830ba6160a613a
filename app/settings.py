"""Settings from the environment (PARETOSCOPE_*); every field has a laptop-friendly default."""

from __future__ import annotations

import ipaddress
from functools import lru_cache
from pathlib import Path
from typing import Annotated
from urllib.parse import urlsplit

from pydantic import Field, field_validator
from pydantic_settings import BaseSettings, NoDecode, SettingsConfigDict

PROJECT_ROOT = Path(__file__).resolve().parent.parent
# Installed from the wheel, templates, static files, migrations and seed data are inside the
# package (setup.py maps them there); in a checkout they sit at its top level.
INSTALLED = (Path(__file__).resolve().parent / "templates").is_dir()


def bundled(name: str) -> Path:
    """The directory `templates`, `static`, `migrations` or `seed_data`, wherever this copy of
    the app keeps it."""
    return (Path(__file__).resolve().parent if INSTALLED else PROJECT_ROOT) / name


# A checkout keeps its database beside the code; an installed package, under the directory it
# is started from (site-packages is no place for data).
DEFAULT_DATABASE = (
    Path("data", "paretoscope.db") if INSTALLED else PROJECT_ROOT / "data" / "paretoscope.db"
)
# Names that always reach this machine itself; a browser sends them only when the user typed them.
LOOPBACK_HOSTS = ("localhost", "127.0.0.1", "[::1]")
# Bind addresses that mean "every interface": never a name a browser should send as Host.
WILDCARD_BIND = ("0.0.0.0", "::", "[::]", "")


class Settings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="PARETOSCOPE_", env_file=".env", extra="ignore")

    database_url: str = Field(
        default=f"sqlite:///{DEFAULT_DATABASE}",
        description="SQLAlchemy URL: SQLite by default; postgresql+psycopg://user@host/db.",
    )
    host: str = Field(default="127.0.0.1", description="Address `paretoscope serve` binds to.")
    port: int = Field(default=8000, description="Port `paretoscope serve` listens on.")
    max_upload_mb: float = Field(
        default=50, description="Largest accepted upload, in MB (all files)."
    )
    max_unpacked_mb: float | None = Field(
        default=None,
        description="Largest total an uploaded archive may unpack to, in MB (default: 10× "
        "max_upload_mb); members expanding over 200× their compressed size are refused too.",
    )
    max_staged_mb: float | None = Field(
        default=None,
        description="Largest total of files the upload page keeps staged between preview and "
        "save, in MB (default: 4× max_upload_mb); a new upload past it is refused with 503.",
    )
    staged_upload_minutes: float = Field(
        default=60,
        gt=0,
        description="How long staged upload files are kept for their preview and save.",
    )
    write_token: str | None = Field(
        default=None,
        description="When set, every write needs it: `Authorization: Bearer <token>` on the API, "
        "the token field on forms.",
    )
    allowed_hosts: Annotated[list[str], NoDecode] = Field(
        default_factory=list,
        description="Host names the server answers to, comma-separated (`*.example.com` matches "
        "subdomains, `*` any host). Loopback names are always accepted; unset means the loopback "
        "names plus the bind host. Any other Host header gets 400 (stops DNS rebinding).",
    )
    public_url: str | None = Field(
        default=None,
        description="The scheme, host and port browsers use to reach the dashboard "
        "(https://perf.example.com) when that is not what the server sees, as behind a proxy "
        "that ends TLS: writes from pages at this origin are accepted as same-origin.",
    )
    trusted_proxies: Annotated[list[str], NoDecode] = Field(
        default_factory=list,
        description="Addresses (IPs or CIDR ranges, comma-separated) of reverse proxies whose "
        "X-Forwarded-Proto and X-Forwarded-Host say the scheme and host the browser used; "
        "those headers from any other peer are ignored.",
    )
    # Python runs one thread per worker at a time: more threads only overlap database waits,
    # and beyond a few they contend for the interpreter lock. At 16 clients on Explore, 16
    # threads cost 25-35% more CPU per page than 2-4 (bench/throughput.py, interleaved A/B).
    threads: int = Field(
        default=4,
        ge=1,
        le=512,
        description="Threads per worker for parsing and database work; also the size of each "
        "worker's database connection pool. A few suffice: Python runs one at a time, so more "
        "only help when the database is far away; add workers, not threads, for more CPU.",
    )
    page_cache_mb: float = Field(
        default=64,
        ge=0,
        le=65536,
        description="Memory per worker for Explore pages kept for the same address while no "
        "sweep, tag or catalog row changes (0 keeps none). Every change renews a token in the "
        "database, so each replica drops what it kept on its next request.",
    )
    gzip_level: int = Field(
        default=4,
        ge=1,
        le=9,
        description="gzip level for answers compressed as they are sent, and for Explore pages "
        "compressed once as they are kept (1 fastest, 9 smallest).",
    )
    hovers_inline_max_points: int = Field(
        default=4096,
        ge=0,
        le=10_000_000,
        description="Explore charts with more points than this send their hover numbers in a "
        "second answer the browser asks for as it draws, so the page it waits for stays small.",
    )
    base_url: str | None = Field(
        default=None,
        description="The address users open the dashboard at (https://dash.example.com), for the "
        "Compare link in `paretoscope check` summaries.",
    )
    prometheus_url: str | None = Field(
        default=None,
        description="A Prometheus HTTP query API (Prometheus, Thanos, Mimir, VictoriaMetrics) to "
        "pull a deployment's serving metrics from, read-only (e.g. http://prometheus:9090).",
    )
    prometheus_timeout_s: float = Field(
        default=30,
        gt=0,
        le=600,
        description="Time box of one live pull, all its queries together.",
    )
    seed_on_start: bool = Field(
        default=True, description="Seed catalogs and demo sweeps when the database is empty."
    )
    mcp_http: bool = Field(
        default=False,
        description="Serve the read-only MCP server (`paretoscope mcp` over stdio) on the web app "
        "too, at /mcp (streamable HTTP), behind the same Host allow-list.",
    )
    reload_templates: bool = Field(
        default=False,
        description="`serve` re-reads a template whose file changed (set by `serve --reload`); "
        "off, templates are compiled once at start.",
    )

    @field_validator("database_url")
    @classmethod
    def _normalise_postgres_scheme(cls, value: str) -> str:
        # Heroku-style URLs name no driver; we ship psycopg 3.
        for prefix in ("postgres://", "postgresql://"):
            if value.startswith(prefix):
                return "postgresql+psycopg://" + value[len(prefix) :]
        return value

    @field_validator("write_token")
    @classmethod
    def _empty_token_is_none(cls, value: str | None) -> str | None:
        return value or None

    @field_validator("allowed_hosts", mode="before")
    @classmethod
    def _split_hosts(cls, value: object) -> object:
        if isinstance(value, str):
            return [h.strip() for h in value.split(",") if h.strip()]
        return value

    @field_validator("public_url")
    @classmethod
    def _origin_of_public_url(cls, value: str | None) -> str | None:
        if not value or not value.strip():
            return None
        try:
            parts = urlsplit(value.strip())
            parts.port  # noqa: B018  (raises ValueError on a non-numeric port)
        except ValueError as exc:
            raise ValueError(f"not a URL: {value!r} ({exc})") from None
        if parts.scheme.lower() not in ("http", "https") or not parts.hostname:
            raise ValueError(f"give an http:// or https:// address with a host name, not {value!r}")
        return f"{parts.scheme.lower()}://{parts.netloc.lower()}"

    @field_validator("trusted_proxies", mode="before")
    @classmethod
    def _split_proxies(cls, value: object) -> object:
        if isinstance(value, str):
            value = [p.strip() for p in value.split(",") if p.strip()]
        if isinstance(value, list):
            for entry in value:
                try:
                    ipaddress.ip_network(str(entry).strip(), strict=False)
                except ValueError:
                    raise ValueError(f"not an IP address or CIDR range: {entry!r}") from None
        return value

    @property
    def trusted_hosts(self) -> tuple[str, ...]:
        """The Host allow-list in force: the configured names, or the bind host, plus loopback."""
        configured = self.allowed_hosts or (
            [] if self.host.strip() in WILDCARD_BIND else [self.host.strip()]
        )
        return (*LOOPBACK_HOSTS, *configured)

    @property
    def max_upload_bytes(self) -> int:
        return int(self.max_upload_mb * 1024 * 1024)

    @property
    def max_staged_bytes(self) -> int:
        mb = self.max_staged_mb if self.max_staged_mb else 4 * self.max_upload_mb
        return int(mb * 1024 * 1024)

    @property
    def max_unpacked_bytes(self) -> int:
        mb = self.max_unpacked_mb if self.max_unpacked_mb else 10 * self.max_upload_mb
        return int(mb * 1024 * 1024)


@lru_cache
def get_settings() -> Settings:
    return Settings()
