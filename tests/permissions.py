"""Real permission checks in tests that run as root (as CI does): root reads and writes anything
through CAP_DAC_OVERRIDE and CAP_DAC_READ_SEARCH, so a test that needs a folder this user cannot
read or write runs its command without them (util-linux's ``setpriv``); as another user the
permissions hold as they are."""

from __future__ import annotations

import os
import shutil

import pytest


def as_a_user() -> list[str]:
    """The argv prefix under which file permissions hold; skips where that cannot be had."""
    if os.geteuid() != 0:
        return []
    if shutil.which("setpriv") is None:
        pytest.skip("setpriv (util-linux) is needed to drop root's read-anything capabilities")
    return ["setpriv", "--bounding-set=-dac_override,-dac_read_search"]
