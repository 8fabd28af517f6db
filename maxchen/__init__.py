"""maxchen: a self-hosted party server for Mäxchen and its cousins."""

__version__ = "0.1.0"
