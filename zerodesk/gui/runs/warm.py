"""The application's warm workers: one per interpreter, started by its first run, stopped when the application quits.

A run forked from a warm worker starts in milliseconds instead of importing torch for seconds (job_server.py), so
a user who measures or simulates again and again waits for the step, not for the imports. The worker runs in its own
process (the window never imports torch) and dies with the window's process if nothing else stops it.
"""

from __future__ import annotations

from PySide6.QtCore import QCoreApplication

from ...measure.job_server import JobServer, supported

_servers: dict[str, JobServer] = {}


def warm_server(python: str) -> JobServer | None:
    """The warm worker for `python` (made now, started with its first job), or None where there can be none."""
    if not supported():
        return None
    server = _servers.get(python)
    if server is None:
        server = _servers[python] = JobServer(python)
        app = QCoreApplication.instance()
        if app is not None:
            app.aboutToQuit.connect(server.close)
    return server
