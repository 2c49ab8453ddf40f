"""Tools for one game or one hand, above the pipelines: interactive play against the bots
(:mod:`tools.play`), the analysis of one hand by sampled double-dummy deals (:mod:`tools.hand`) and
the constraints on the unseen cards it deals under (:mod:`tools.constraints`)."""
