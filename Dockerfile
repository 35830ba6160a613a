# Paretoscope: SQLite on the /data volume by default; set PARETOSCOPE_DATABASE_URL for Postgres.
# It binds 0.0.0.0 inside the container but answers only to localhost/127.0.0.1 until you name
# the host users type, and anyone may write until you set a token (serve warns about that):
#   docker run -p 8000:8000 -e PARETOSCOPE_ALLOWED_HOSTS=dash.example.com \
#     -e PARETOSCOPE_WRITE_TOKEN=... paretoscope
# See README, "Running on a shared host".
FROM python:3.11-slim

WORKDIR /srv/paretoscope
ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PARETOSCOPE_HOST=0.0.0.0 \
    PARETOSCOPE_PORT=8000 \
    PARETOSCOPE_DATABASE_URL=sqlite:////data/paretoscope.db \
    PARETOSCOPE_ALLOWED_HOSTS=localhost,127.0.0.1

# Dependencies first, so code changes do not reinstall them.
COPY pyproject.toml README.md ./
RUN mkdir app && touch app/__init__.py && pip install --no-cache-dir -e . && rm -rf app

# Templates, static files, migrations and seed data are read from the source tree (editable install).
COPY app ./app
COPY templates ./templates
COPY static ./static
COPY migrations ./migrations
COPY seed_data ./seed_data
COPY alembic.ini ./

VOLUME ["/data"]
EXPOSE 8000
HEALTHCHECK --interval=30s --timeout=5s CMD python -c "import urllib.request; urllib.request.urlopen('http://127.0.0.1:8000/healthz')"
# `serve` migrates to head and seeds an empty database before it starts uvicorn.
CMD ["paretoscope", "serve"]
