"""The IP feature families (policer, ADL allowlist): their definitions (``defs``) and VPP set-up
(``vpp``)."""
