"""The 3-node WireGuard families: their definitions (``defs``) and VPP set-up (``vpp``)."""
