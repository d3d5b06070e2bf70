"""The one error the rest of the studio has to understand about models."""

from __future__ import annotations


class ModelError(Exception):
    """The gateway gave up on a call.

    ``str(error)`` is a single line meant for the person at the keyboard: which
    model, what went wrong, what to do next. It never carries an API key.
    """

    def __init__(self, model: str, message: str, attempts: int = 1):
        self.model = model
        self.attempts = attempts
        self.message = " ".join(message.split())
        super().__init__(self.message)

    def __str__(self) -> str:
        return self.message


class BrokenReply(Exception):
    """A reply that arrived but is not a whole answer (empty, no text at all, or a stream that ended
    before the provider said it had finished): a fault, retried like a dropped connection."""
