"""``heron-sim explore``: a local page where a designer changes a rule and watches its effect.

The page (static/, no external asset) draws a rules form generated from the rules' defaults
and validation (:mod:`.form`), plays the rulings and the variant on the same games on one worker
thread (:mod:`.live`), and streams paired figures with 95 % bootstrap intervals (:mod:`.stats`)
as server-sent events from a Starlette application (:mod:`.app`) served by uvicorn on 127.0.0.1
(:mod:`.server`). :mod:`.exports` writes the variant, the equivalent commands and a tune study.

    from heron_sim.explore import create_app, serve
    serve(port=None, open_browser=True)      # what `heron-sim explore --open` does
"""

from .app import create_app
from .server import serve

__all__ = ["create_app", "serve"]
