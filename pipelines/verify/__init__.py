"""Replay and verify a deal log through the engine (``fivehundred replay`` / ``fivehundred verify``).

Both read only the deal log (``RUN_DIR/deals/*.parquet``, docs/deal-log.md) and the run's manifest
(``RUN_DIR/manifest.json``, optional: it gives the rules and the master seed when present).  By concern:

- :mod:`.run`: opening a run (part files, manifest, the rules it was played with);
- :mod:`.codec`: a logged row -> the engine's dealt state, every logged action applied with the
  engine's legality check (texts read through :mod:`sim.notation`);
- :mod:`.replay`: :func:`replay_deal`, one deal as a player reads it (:class:`DealReplay`);
- :mod:`.checks`: :func:`verify_run`, every deal re-run, with the cross-deal checks (ids, hand
  numbers, dealer rotation, game ends), the engine's logged facts, and, unless ``rules_only``, the
  seeds and the manifest that only this project's own runs can pass.
"""

from fivehundred.pipelines.verify.checks import Finding, VerifyResult, verify_run
from fivehundred.pipelines.verify.codec import dealt_state, rerun
from fivehundred.pipelines.verify.replay import (
    DealReplay,
    GameReplay,
    ReplayedDeal,
    Trick,
    replay_deal,
    replay_game,
)
from fivehundred.pipelines.verify.run import RunError, RunLog, open_run, rules_of_run

__all__ = [
    "DealReplay",
    "Finding",
    "GameReplay",
    "ReplayedDeal",
    "RunError",
    "RunLog",
    "Trick",
    "VerifyResult",
    "dealt_state",
    "open_run",
    "replay_deal",
    "replay_game",
    "rerun",
    "rules_of_run",
    "verify_run",
]
