"""Simulate and measure in the window: the Measure tab, its run controller and process, and the results
that land on the Plan chart."""
