"""The simulated DUT: behaviour models (how loss varies with load, duration and time), the capacity
a family's packet cost gives, and what the sim TG modelled for each DUT node.

Pure computation, no I/O. The sim TG (``ndrpdr.trafficgen.sim``) measures
trials against these models; the sim DUT driver (``ndrpdr.dut.sim``) reports
them. Neither imports the other.
"""
