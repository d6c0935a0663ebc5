"""Command line entry point (placeholder replaced below)."""


def main() -> int:
    return 0
