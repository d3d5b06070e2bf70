"""The studio app: watch, step, rewind, take over and edit scenes in a Textual terminal app.

Importing this package is cheap; `studio.tui.app.StudioApp` is the app.
"""
