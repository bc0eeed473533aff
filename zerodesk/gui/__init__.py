"""Qt views over the planning core. Imports PySide6 and pyqtgraph, never torch."""
