"""studio: a terminal playwriting studio."""
