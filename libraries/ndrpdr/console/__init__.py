"""What a console shows while a search runs and when it ends: trial lines, bounds, estimates.

Below both the command line (``ndrpdr.cli``) and the keyword layer
(``NdrPdrLibrary``), which print the same lines.
"""
