"""HTTP plumbing shared by the JSON API and the pages: dependencies, errors, middleware."""
