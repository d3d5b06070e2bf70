"""Bodies of the `studio` subcommands that outgrew studio/cli.py, one module each."""
