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
        head = f"{self.where}"
        if self.field:
            head += f": field '{self.field}'"
        text = f"{head}: {self.problem}"
        if self.fix:
            text += f"\n  fix: {self.fix}"
        return text
