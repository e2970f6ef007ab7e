"""Keyword components, one per area: testbed, DUT, traffic, search, results."""
