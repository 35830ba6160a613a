"""The JSON the API answers with, one module per concept: what OpenAPI documents, what
schemathesis checks every answer against, and what tests validate real answers with."""
