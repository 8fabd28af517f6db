"""Start the server from a clone: `python app.py --host H --port P` is `maxchen run --host H --port P`,
with its files in the clone's ./instance (`make run` starts it so).

The app lives in maxchen/server.py (create_app, the Socket.IO object) and the
command line in maxchen/cli.py, so that an installed package has both.
"""

import sys

from maxchen.cli import main
from maxchen.paths import CLONE_INSTANCE

if __name__ == "__main__":
    sys.exit(main(["run", *sys.argv[1:]], instance=CLONE_INSTANCE))
