"""The NAT44 families: their definitions (``defs``) and VPP set-up (``vpp``)."""
