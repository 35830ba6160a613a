"""What a sweep carries below any read-off: memo, covariates, splits, units, likeness, tags."""
