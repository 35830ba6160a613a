"""One module per benchmark tool; each defines IMPORTER (see app.ingest.registry.Importer).

Modules here are discovered automatically, so adding a tool is adding a file.
"""
