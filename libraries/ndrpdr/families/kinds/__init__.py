"""The built-in families, one package per kind (its name is the kind: ``suites/<kind>/``).

A kind's ``defs`` module lists its families in ``FAMILIES`` and says with
``ORDER`` where they come in the list of every family; its ``vpp`` module
(when it has one) is their VPP set-up. The registry finds the kinds here
(``ndrpdr.families.registry``): a new kind is a new package, listed nowhere.
"""
