"""``python -m engram``."""

import sys

from engram.launcher import main

sys.exit(main())
