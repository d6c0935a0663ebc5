"""Reports: the ``rocmate.report/1`` model (:mod:`core.report.model`) and the history of runs
(:mod:`core.report.history`). Writers for HTML and Markdown come later."""
