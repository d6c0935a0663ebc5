"""rocmate's desktop app: a wizard that shows what core's operations return and calls what they
offer. It never starts a process or reads the machine itself (an import-linter contract forbids
``subprocess`` here); slow core work runs off the GUI thread through :mod:`gui.bridge`."""
