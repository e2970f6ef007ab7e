"""The 3-node SRv6 proxy families: their definitions (``defs``) and VPP set-up (``vpp``)."""
