"""Tools for building and checking rocmate (run with python -m scripts.<name>)."""
