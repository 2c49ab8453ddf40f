"""Settings shared by the whole suite.

Hypothesis runs derandomized by default (the ``ci`` profile): the same examples on every run and
machine, so a change fails or passes on its own merits, never on the luck of a draw.  Set
``HYPOTHESIS_PROFILE=explore`` to draw fresh examples when hunting for counterexamples (pin what
they find with ``@example``).
"""

from __future__ import annotations

import os

from hypothesis import settings

settings.register_profile("ci", derandomize=True, database=None, print_blob=True)
settings.register_profile("explore", derandomize=False)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))
