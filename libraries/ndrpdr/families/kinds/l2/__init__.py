"""The L2 families (cross-connect, patch, bridge domains): their definitions (``defs``) and VPP
set-up (``vpp``)."""
