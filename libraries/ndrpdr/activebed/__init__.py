"""A testbed in use: ``testbed.ActiveTestbed`` sets up what a topology describes, and drives it.

Above the drivers it puts together: the nodes and what their drivers can
run (``nodes``), CPUs placed for the nodes on this machine (``cpuplace``),
and the versions of the software the nodes run (``versions``). The
topology it starts from is ``ndrpdr.topology``'s model, which sits below
the drivers.
"""
