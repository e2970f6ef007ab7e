"""Traffic generator drivers. Every driver is a Measurer of ndrpdr.search."""
