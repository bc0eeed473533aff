"""The Measure tab's parts: a controller that runs and reduces, and small widgets that only render."""
