"""Services: stored rows in, domain results out (read-offs, comparisons, audits, uploads, seed)."""
