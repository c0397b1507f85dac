"""``python -m train GAME …`` = ``kortmiljo train GAME …``."""

import sys

from train.cli import main

sys.exit(main())
