"""maxchen: a self-hosted party server for Mäxchen and its cousins."""
