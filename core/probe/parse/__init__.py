"""Pure parsers: text a command or file produced -> frozen dataclasses. No I/O here."""
