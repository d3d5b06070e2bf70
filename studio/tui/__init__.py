"""The studio app: watch, step, rewind, take over and edit scenes in a Textual terminal app.

Importing this package is cheap; `studio.tui.app.StudioApp` is the app.
"""

import os

# Textual paints a screen at most 60 times a second unless told otherwise, and a new line's first words
# wait for the next of those frames after the screen's queue falls idle: about 40 ms from the key to the
# first word on a 2-core machine. At 120 frames a second they show in about half that, for about 2% of a
# core more while a line streams (both measured by bench/bench_tui.py). A TEXTUAL_FPS the user set wins.
# This must run before Textual is first imported, which every way into the app passes through here.
os.environ.setdefault("TEXTUAL_FPS", "120")
