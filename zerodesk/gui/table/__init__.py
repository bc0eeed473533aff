"""The Table tab: the plan as a table of per-stage figures."""
