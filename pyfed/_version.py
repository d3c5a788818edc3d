"""pyfed's version (one place; the package, the reports and the CLI read it here)."""

__version__ = "0.1.0"
