"""ndrpdr: NDR/PDR throughput testing (search engine, testbeds, drivers, results).

Nothing in this package does I/O at import time.
"""

__version__ = "0.1.0"
