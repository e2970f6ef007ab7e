"""DPDK application DUT drivers (``testpmd``, ``l3fwd``) and their shared parts: the application's
lifecycle (``app``), its ports, memory and runtime files (``setup``), the EAL command line
(``eal``), lcores (``lcores``), options (``options``), a lab host's set-up (``lab``) and l3fwd's
build (``l3fwd_build``)."""
