"""JSON API routers under /api."""
