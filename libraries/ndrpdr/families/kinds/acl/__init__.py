"""The ACL and classifier families: their definitions (``defs``) and VPP set-up (``vpp``)."""
