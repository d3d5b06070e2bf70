"""How events read, once for every face of the studio: `studio show` in a terminal and the app's panes.

Pure renderers: they take events (and the cast) and give rich Text or markup; they never open the store,
never import Textual, never ask the engine. Above the engine and below the app and the CLI.
"""
