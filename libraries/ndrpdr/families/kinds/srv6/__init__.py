"""The 3-node SRv6 families: their definitions (``defs``) and VPP set-up (``vpp``)."""
