"""The 3-node VXLAN families: their definitions (``defs``) and VPP set-up (``vpp``)."""
