"""``python -m kortmiljo.train GAME …`` = ``kortmiljo train GAME …``."""

import sys

from kortmiljo.train.cli import main

sys.exit(main())
