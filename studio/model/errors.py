"""The one error a user sees for bad input: it names the file, the field and the fix."""

from __future__ import annotations


class InputError(Exception):
    """Bad input from a file or the command line. The CLI prints it and exits 2."""

    def __init__(self, where: str, field: str | None, problem: str, fix: str | None = None):
        self.where = where
        self.field = field
        self.problem = problem
        self.fix = fix
        super().__init__(self.message)

    @property
    def message(self) -> str:
        """Printed as it is: every part may hold what the user typed or a file said, so each is cleaned of
        terminal control and of secrets here, once for every message (studio/clean.py)."""
        from studio.clean import one_line, redact_secrets

        head = one_line(redact_secrets(self.where))
        if self.field:
            head += f": field '{one_line(redact_secrets(self.field))}'"
        text = f"{head}: {one_line(redact_secrets(self.problem))}"
        if self.fix:
            text += f"\n  fix: {one_line(redact_secrets(self.fix))}"
        return text
