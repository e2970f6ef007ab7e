"""The ``ndrpdr`` command line: ``main``, the table of commands (``commands``), one module a command
(``*_cmd``, imported only when its command is chosen)."""
