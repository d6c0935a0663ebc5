"""What a user can do, as plain functions and runners: the layer both front ends call.

Each operation takes typed inputs, returns a dataclass (or raises :class:`OperationError` with
one line for the user), prints nothing and knows no argparse. ``core/cli/`` turns them into
commands; the desktop app calls the same ones.

- :mod:`core.operations.machine`: check the machine, explain an error, take a snapshot
- :mod:`core.operations.setup`: plan, run and resume a set-up; the card's variables
- :mod:`core.operations.benchmark`: run a suite to a stored report (events, cancel)
- :mod:`core.operations.repair`: repair an app's PyTorch family in place, roll it back, the
  history of repairs
- :mod:`core.operations.reports`: list, load, render, export, compare, import, delete reports
- :mod:`core.operations.menu_entry`: the AppImage in the desktop's application menu (add,
  read back, remove)

This file imports nothing.
"""
