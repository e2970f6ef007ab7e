"""The 2-node GENEVE families: their definitions (``defs``) and VPP set-up (``vpp``)."""
