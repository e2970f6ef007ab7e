"""The built-in families, one module per kind (its name is the kind: ``suites/<kind>/``); each
module's ``FAMILIES`` lists its families. ``registry.BUILTIN_MODULES`` gives their order."""
