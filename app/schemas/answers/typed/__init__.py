"""A TypedDict for every answer model of app.schemas.answers, one module per
concept, written from the models themselves by tools/answer_types.py (`make test` fails when
it differs): a builder annotated with one is held by mypy to its model's keys and value
types. Do not edit these modules by hand."""
