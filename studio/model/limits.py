"""Upper bounds on a sheet's text, shared by the files, the command line's overrides and Character Cards.

Bounds keep one sheet from filling every prompt it enters (a prompt is sent on every call).
"""

MAX_NAME = 100
MAX_DESCRIPTION = 4000
MAX_PROMPT = 20_000
# A model's name, in a file or on the command line: no provider's is near it.
MAX_MODEL_NAME = 200
