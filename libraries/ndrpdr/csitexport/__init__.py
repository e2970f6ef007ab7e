"""Our records in CSIT's JSON model (``test_case`` 1.5.1): names, the result object, validation."""
