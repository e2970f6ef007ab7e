"""The IPv6 routing families: their definitions (``defs``); VPP routes them with
``ndrpdr.families.vppip``."""
