"""The 3-node IPsec families: their definitions (``defs``) and VPP set-up (``vpp``)."""
