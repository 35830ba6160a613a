"""Server-rendered pages (Jinja2 + htmx fragments)."""
