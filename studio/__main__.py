"""`python -m studio` is the `studio` command, for a checkout or an environment without the script on PATH."""

import sys

from studio.cli import main

sys.exit(main())
