"""The 3-node GTP-U families: their definitions (``defs``) and VPP set-up (``vpp``)."""
