"""The studio app: watch, step, rewind, take over and edit scenes in a Textual terminal app.

Importing this package is cheap; `studio.tui.app.StudioApp` is the app.
"""

import os

# Textual paints a screen at most 60 times a second unless told otherwise. A new line's first words do
# not wait for that pace (the stage asks for a frame at once, see StageView.stream); the rest of a
# streaming line does, and is redrawn up to 120 times a second for a little more CPU (measured by
# bench/bench_tui.py). A TEXTUAL_FPS the user set wins.
# This must run before Textual is first imported, which every way into the app passes through here.
os.environ.setdefault("TEXTUAL_FPS", "120")
