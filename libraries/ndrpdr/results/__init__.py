"""Results: the versioned JSON record of one search and its judgement (irregular, TG-limited,
flapping, one-way), kept on disk while the search runs.

Sub-packages read the record: ``report`` (what a run writes for Robot),
``trend`` (results over time), ``csit`` (CSIT's JSON model) and ``outdir``
(a run's output directory).
"""
