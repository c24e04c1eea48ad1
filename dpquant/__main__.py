"""``python -m dpquant``: the ``dpquant`` command line."""

import sys

from dpquant.cli import main

if __name__ == "__main__":
    sys.exit(main())
