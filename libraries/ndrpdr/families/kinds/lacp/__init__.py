"""The 3-node link bonding family: its definition (``defs``) and VPP set-up (``vpp``)."""
