"""Card names compared as words: "AMD Radeon(TM) RX 6800M" and the table's "Radeon RX 6800M"
name the same card; "RX 6800" does not (gfx1030, not gfx1031), nor "RX 7600" the "RX 7600 XT".
"""

from __future__ import annotations

import re

_TRADEMARKS = re.compile(r"\((?:tm|r|c)\)|[\u2122\u00ae\u00a9]", re.IGNORECASE)
FILLER = frozenset({"amd", "ati", "nvidia", "graphics"})
"""Words that name no card: the vendors, and the "Graphics" that some names carry and others
leave off ("Radeon RX 480 Graphics" in libdrm's table is the RX 480)."""


def name_words(text: str) -> tuple[str, ...]:
    """'AMD Radeon(TM) RX 6800M' -> ('radeon', 'rx', '6800m'); 'NVIDIA H200' -> ('h200',)."""
    words = re.split(r"[^0-9a-z]+", _TRADEMARKS.sub(" ", text.lower()))
    return tuple(word for word in words if word and word not in FILLER)
