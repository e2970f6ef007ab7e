"""Results over time: per-test series, change points, two runs compared, the trend report page."""
