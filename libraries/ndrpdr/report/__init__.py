"""What a run writes for Robot from a record: the test message and metadata, the trace and latency
plots (inline SVG) and the trial table for log.html."""
