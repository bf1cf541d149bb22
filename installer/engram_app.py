"""Entry point of the packaged app (PyInstaller runs this file; it starts ``engram``)."""

import sys

from engram.launcher import main

if __name__ == "__main__":
    sys.exit(main())
