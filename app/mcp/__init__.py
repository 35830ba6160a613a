"""The Model Context Protocol server: the JSON API's read-only answers for assistants, each with
its provenance. A peer of app/api and app/web: it parses, calls the same services, and answers."""
