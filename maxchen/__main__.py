"""`python -m maxchen run [options]`: the same as the `maxchen` command."""

import sys

from .cli import main

sys.exit(main())
