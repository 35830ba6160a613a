# Paretoscope: SQLite on the /data volume by default; set PARETOSCOPE_DATABASE_URL for Postgres
# (the image includes the postgres extra).
# It binds 0.0.0.0 inside the container but answers only to localhost/127.0.0.1 until you name
# the host users type, and anyone may write until you set a token (serve warns about that):
#   docker run -p 8000:8000 -e PARETOSCOPE_ALLOWED_HOSTS=dash.example.com \
#     -e PARETOSCOPE_WRITE_TOKEN=... paretoscope
# See README, "Running on a shared host", and docs/dependencies.md.
# tests/test_dockerfile.py installs and serves exactly what the COPY lines below copy.

# --- builder: the locked packages and the project, in a venv the final stage takes whole.
FROM python:3.11-slim AS builder
ENV PIP_DISABLE_PIP_VERSION_CHECK=1 \
    PIP_NO_CACHE_DIR=1
RUN python -m venv /opt/venv
WORKDIR /srv/paretoscope
# Dependencies first, so code changes do not reinstall them: every package pinned and hashed.
COPY requirements-postgres.lock ./
RUN /opt/venv/bin/pip install --require-hashes -r requirements-postgres.lock
# Editable: templates, static files, migrations and seed data are read from the source tree, which
# the final stage puts at the same path.
COPY pyproject.toml README.md ./
COPY app ./app
RUN /opt/venv/bin/pip install --no-deps --no-build-isolation -e .

# --- final: the venv and the source tree, run by an unprivileged user.
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
WORKDIR /srv/paretoscope
COPY pyproject.toml README.md alembic.ini ./
COPY app ./app
COPY templates ./templates
COPY static ./static
COPY migrations ./migrations
COPY seed_data ./seed_data

USER paretoscope
VOLUME ["/data"]
EXPOSE 8000
HEALTHCHECK --interval=30s --timeout=5s --start-period=20s --retries=3 \
    CMD ["python", "-c", "import urllib.request; urllib.request.urlopen('http://127.0.0.1:8000/healthz', timeout=4)"]
# `serve` migrates to head and seeds an empty database before it starts uvicorn.
CMD ["paretoscope", "serve"]
