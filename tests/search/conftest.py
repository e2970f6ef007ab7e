"""Hypothesis profiles for the search engine tests.

``HYPOTHESIS_PROFILE=ci`` selects a reproducible profile (derandomized, no
deadline); without it hypothesis runs with its defaults.
"""

from __future__ import annotations

import os

from hypothesis import settings

settings.register_profile("ci", deadline=None, derandomize=True, max_examples=100)
settings.register_profile("dev", deadline=None)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "dev"))
