"""The vhost-user families (a guest over two vhost-user interfaces): their definitions
(``defs``) and VPP set-up (``vpp``)."""
