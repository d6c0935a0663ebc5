"""``python -I -m core.install.helper [--check | --cancel-on-eof]`` (see main.py)."""

import sys

from core.install.helper.main import main

sys.exit(main())
