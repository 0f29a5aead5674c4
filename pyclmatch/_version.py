"""The package version (a leaf module, so that any module can name it)."""
__version__ = "0.1.0"
