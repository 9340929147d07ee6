"""Serving the explorer: 127.0.0.1 only, a free port (or ``--port``), uvicorn underneath.

Ctrl-C (or SIGTERM) stops it cleanly: uvicorn stops accepting connections, every event stream
ends at once (``app.state.stopping``), the running games are cancelled after their current
chunk, and :func:`serve` returns.
"""

from __future__ import annotations

import errno
import socket
import threading
from typing import Callable

from ..errors import HeronSimError

HOST = "127.0.0.1"  # never anything else: the explorer is a local page


def bind(port: int | None) -> socket.socket:
    """A listening socket on 127.0.0.1 (``port`` None or 0: a free port the system picks)."""
    if port is not None and (isinstance(port, bool) or not 0 <= port <= 65535):
        raise HeronSimError(f"--port: {port}; allowed: 1..65535 (or 0: a free port)")
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    try:
        sock.bind((HOST, port or 0))
    except OSError as err:
        sock.close()
        if err.errno == errno.EADDRINUSE:
            raise HeronSimError(f"--port: {port} is in use on {HOST}; allowed: a free port, or leave "
                                "--port out to get one") from None
        raise HeronSimError(f"--port: {port}: {err.strerror}") from None
    sock.listen(128)
    sock.set_inheritable(True)
    return sock


def serve(port: int | None = None, open_browser: bool = False,
          echo: Callable[[str], None] = print, ready: Callable[[str], None] | None = None) -> int:
    """Serve the explorer until Ctrl-C/SIGTERM; returns the port it served on.

    ``echo`` prints the URL (and the goodbye); ``ready`` is called with the URL once it listens.
    """
    import uvicorn

    from .app import create_app

    sock = bind(port)
    real_port = sock.getsockname()[1]
    url = f"http://{HOST}:{real_port}/"
    app = create_app()

    class Server(uvicorn.Server):
        def handle_exit(self, sig, frame):  # the event streams end now, not at a timeout
            app.state.stopping = True
            app.state.engine.close(timeout=0)
            super().handle_exit(sig, frame)

    config = uvicorn.Config(app, log_level="warning", access_log=False, lifespan="off",
                            timeout_graceful_shutdown=3, ws="none")
    server = Server(config)

    def announce():
        while not server.started and not server.should_exit:
            threading.Event().wait(0.05)
        if server.started:
            echo(f"heron-sim explore: {url}  (127.0.0.1 only; Ctrl-C stops)")
            if ready is not None:
                ready(url)
            if open_browser:
                import webbrowser

                webbrowser.open(url)

    threading.Thread(target=announce, name="explore-announce", daemon=True).start()
    try:
        server.run(sockets=[sock])
    finally:
        app.state.stopping = True
        app.state.engine.close()
        sock.close()
    echo("heron-sim explore: stopped")
    return real_port
