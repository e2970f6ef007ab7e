"""TRex in ASTF mode for the stateful families: the profile of a family (``profile``), a trial's
counters as CSIT counts them (``counts``), the ASTF client in its child process (``child``,
``client``) and the traffic generator (``driver``)."""
