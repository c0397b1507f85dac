"""``python -m kortmiljo``: the ``kortmiljo`` command (:mod:`kortmiljo.cli`), also without installation."""

import sys

from .cli import main

sys.exit(main())
