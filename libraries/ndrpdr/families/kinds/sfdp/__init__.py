"""SFDP families (TRex ASTF through VPP's SFDP): definitions (``defs``), VPP set-up (``vpp``)."""
