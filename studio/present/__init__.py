"""Views of the log that more than one front needs: the same words for the CLI's print and the app's panes."""
