"""The guest of the vhost-user families (FD.io CSIT's VM): what it runs (``plan``), its
command lines (``testpmd``, ``vpp``, ``qemu``) and its process (``run``)."""
