"""Property-based requests from /openapi.json (schemathesis) on both databases: no 5xx.

Bounded: a fixed number of derandomised examples per operation (a failure reproduces), about
ten seconds per database on an idle machine, up to a minute on a busy one. Every operation is
exercised, writes included; all failures are collected so one run reports every 5xx.
"""

from __future__ import annotations

import pytest
import schemathesis
from hypothesis import HealthCheck, given, settings
from schemathesis.checks import not_a_server_error

from app.main import create_app
from app.settings import Settings

EXAMPLES_PER_OPERATION = 30


def test_no_generated_request_gets_a_server_error(database_url: str) -> None:
    app = create_app(
        Settings(database_url=database_url, seed_on_start=False, allowed_hosts=["testserver"]),
        migrate=False,
    )
    schema = schemathesis.openapi.from_asgi("/openapi.json", app)
    failures: list[str] = []
    operations = [result.ok() for result in schema.get_all_operations()]
    assert len(operations) >= 30
    for operation in operations:

        @settings(
            max_examples=EXAMPLES_PER_OPERATION,
            deadline=None,
            derandomize=True,
            database=None,
            suppress_health_check=list(HealthCheck),
        )
        @given(case=operation.as_strategy())
        def run(case: schemathesis.Case) -> None:
            case.call_and_validate(checks=[not_a_server_error])

        try:
            run()
        except Exception as exc:  # every operation's first failure, reported together
            failures.append(f"{operation.label}: {str(exc)[:600]}")
    if failures:
        pytest.fail("\n\n".join(failures))
