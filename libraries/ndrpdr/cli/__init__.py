"""The ``ndrpdr`` command line: validate, trial, search."""
