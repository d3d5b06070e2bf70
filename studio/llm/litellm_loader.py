"""litellm, imported once on the first call that needs it, and made quiet.

Its import takes seconds, so it happens on a worker thread (a UI would freeze) and never when the package
is imported; its network fetch of the price map, its debug banners and its log handlers are switched off,
since the studio runs under a full-screen terminal UI where a stray print tears the screen.
"""

from __future__ import annotations

import asyncio
import logging
import os
import threading
import warnings
from typing import Any

_litellm: Any = None
_litellm_lock = threading.Lock()


def load() -> Any:
    """Import and configure litellm once; safe to call from any thread."""
    global _litellm
    if _litellm is not None:
        return _litellm
    with _litellm_lock:
        if _litellm is None:
            os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
            os.environ.setdefault("LITELLM_LOCAL_ANTHROPIC_BETA_HEADERS", "True")
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                import litellm
            # litellm's types finish building lazily on first use, and pydantic warns about them then.
            warnings.filterwarnings("ignore", message=r".*`ReadOnly` qualifier", category=UserWarning)
            warnings.filterwarnings("ignore", module=r"litellm(\..*)?$")
            litellm.suppress_debug_info = True
            litellm.set_verbose = False
            litellm.drop_params = True
            # a continued line's answer is what comes after the line so far, from every provider alike
            litellm.disable_add_prefix_to_prompt = True
            _hush_loggers()
            _litellm = litellm
    return _litellm


def loaded() -> Any:
    """litellm if it has been imported, else None: a question asked without paying for the import."""
    return _litellm


def warm_up() -> None:
    """Import litellm now, on the caller's thread.

    The first ``complete`` of a model outside the built-ins does this anyway, but it takes seconds;
    a UI can call this from a background thread once its first frame is up.
    """
    load()


async def ready() -> Any:
    """litellm, imported off the event loop if it is not yet."""
    return _litellm if _litellm is not None else await asyncio.to_thread(load)


def _hush_loggers() -> None:
    """litellm's handlers write to stdout/stderr, under the UI; send them to a file only if asked."""
    target = os.environ.get("STUDIO_LLM_LOG")
    for name in ("LiteLLM", "LiteLLM Router", "LiteLLM Proxy"):
        logger = logging.getLogger(name)
        for handler in list(logger.handlers):
            if isinstance(handler, logging.StreamHandler) and not isinstance(handler, logging.FileHandler):
                logger.removeHandler(handler)
        logger.propagate = False
        if target:
            logger.addHandler(logging.FileHandler(target))
        else:
            logger.addHandler(logging.NullHandler())
