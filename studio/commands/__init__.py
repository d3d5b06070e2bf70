"""Bodies of CLI commands that own a module of their own (cli.py only registers them)."""
