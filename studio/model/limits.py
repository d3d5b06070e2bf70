"""Upper bounds, shared by the files and the command line's overrides (one rule, two doors).

A leaf of its own, so a module that builds sheet text to these bounds (studio.model.card_text) and the
sheet that checks them (studio.model.play) need not import each other.
"""

MAX_TURNS = 10_000
MAX_SCENES = 1000
MAX_NAME = 100
MAX_DESCRIPTION = 4000
MAX_PROMPT = 20_000
