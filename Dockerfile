# Paretoscope: SQLite on the /data volume by default; set PARETOSCOPE_DATABASE_URL for Postgres
# (the image includes the postgres extra).
# It binds 0.0.0.0 inside the container but answers only to localhost/127.0.0.1 until you name
# the host users type, and anyone may write until you set a token (serve warns about that):
#   docker run -p 8000:8000 -e PARETOSCOPE_ALLOWED_HOSTS=dash.example.com \
#     -e PARETOSCOPE_WRITE_TOKEN=... paretoscope
# See README, "Running on a shared host", and docs/dependencies.md.
# The image has no MCP SDK (the optional extra `paretoscope[mcp]`): PARETOSCOPE_MCP_HTTP needs an
# image that adds it (docs/mcp.md).
# tests/test_dockerfile.py checks that the COPY lines and the wheel's build are those with which
# tests/test_install.py builds, installs and serves the wheel (no container engine needed).

# --- builder: the locked packages and the project's wheel, in a venv the final stage takes whole.
FROM python:3.11-slim AS builder
ENV PIP_DISABLE_PIP_VERSION_CHECK=1 \
    PIP_NO_CACHE_DIR=1
RUN python -m venv /opt/venv
WORKDIR /src
# Dependencies first, so code changes do not reinstall them: every package pinned and hashed.
COPY requirements-postgres.lock ./
RUN /opt/venv/bin/pip install --require-hashes -r requirements-postgres.lock
# The wheel carries templates, static files, migrations and seed data inside the package
# (setup.py), built by the locked setuptools; the final stage needs no source tree.
COPY pyproject.toml setup.py README.md ./
COPY app ./app
COPY templates ./templates
COPY static ./static
COPY migrations ./migrations
COPY seed_data ./seed_data
RUN /opt/venv/bin/pip wheel --no-deps --no-build-isolation --wheel-dir /tmp/dist . \
    && /opt/venv/bin/pip install --no-deps /tmp/dist/paretoscope-*.whl

# --- final: the venv alone (the package inside it), run by an unprivileged user.
FROM python:3.11-slim
ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PATH=/opt/venv/bin:$PATH \
    PARETOSCOPE_HOST=0.0.0.0 \
    PARETOSCOPE_PORT=8000 \
    PARETOSCOPE_DATABASE_URL=sqlite:////data/paretoscope.db \
    PARETOSCOPE_ALLOWED_HOSTS=localhost,127.0.0.1
RUN useradd --system --uid 10001 --no-create-home paretoscope \
    && mkdir /data && chown paretoscope /data
COPY --from=builder /opt/venv /opt/venv
WORKDIR /data

USER paretoscope
VOLUME ["/data"]
EXPOSE 8000
HEALTHCHECK --interval=30s --timeout=5s --start-period=20s --retries=3 \
    CMD ["python", "-c", "import urllib.request; urllib.request.urlopen('http://127.0.0.1:8000/healthz', timeout=4)"]
# `serve` migrates to head and seeds an empty database before it starts uvicorn.
CMD ["paretoscope", "serve"]
