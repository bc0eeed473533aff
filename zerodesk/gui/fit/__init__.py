"""The Fit view: what fits on the plan's GPUs (zerodesk.core.fit, fit_map), as a map of Nd by micro-batch, the
largest micro-batch per stage and recompute mode, and the recommendation in words."""
