"""The stateful (TRex ASTF) families: their definitions (``defs``) and VPP set-up (``vpp``)."""
