"""The VPP DUT driver (``driver``) and its parts: the startup and CLI configuration (``config``),
the port kinds (``afpacket``: af_packet or af_xdp on host veths; ``dpdk`` and ``vdev``: VPP's
dpdk plugin on PCI devices or DPDK virtual devices), worker placement (``queues``), the family
set-up (``family``) and a peer VPP in its own namespace (``peer``)."""
