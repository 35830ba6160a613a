"""`make bench`: speed and size targets, each beside a baseline measured in the same run."""
