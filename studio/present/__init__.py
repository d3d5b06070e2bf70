"""Views of the log that more than one face of the studio needs: the same words and the same drawing for
`studio show` in a terminal, the other commands' prints and the app's panes.

Renderers: they take events, the cast, or what the engine folded from them, and give rich Text or
markup; they never import Textual and never write to the store. Above the engine, below the app and the
command line.
"""
