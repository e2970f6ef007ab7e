"""The memif families (a second VPP over memif): their definitions (``defs``) and VPP set-up
(``vpp``)."""
