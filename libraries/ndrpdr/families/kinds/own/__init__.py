"""ndrpdr's own family (``ethip4udp-ip4base``): its definition (``defs``); VPP routes it with
``ndrpdr.families.vppip``."""
