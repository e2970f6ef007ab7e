"""DUT drivers: configure, start, health check, stop, telemetry."""
