"""The `studio` commands, one module each (or a few that belong together). Each adds its own parser with
`register(sub)` and names the function that runs it; studio/cli.py lists them. Only the command line
imports these: what the app needs too lives below, in present/, model/ and the rest."""
