"""parplan's exceptions: the C library's errors, with the same message the
CLI prints, and the file and position that message names taken apart."""

import re

# After "FILE: ": a byte offset ("byte 53"), a line and column ("1:57"), or a
# line ("line 3"), then optionally a JSON path ("ops[0].duration").
_POSITION = re.compile(r"(byte \d+|line \d+(?::\d+)?|\d+:\d+)(?:: ((?:[A-Za-z_]\w*|\[\d+\])(?:\.[A-Za-z_]\w*|\[\d+\])*)(?=: ))?")


class Error(Exception):
    """A parplan call failed. `message` is the CLI's message; `file` the
    input it names (a path, or the name given to a dict such as "<problem>"),
    `position` where in it ("byte 53", "1:57") and `path` the JSON path
    ("ops[0].duration") when the message has them, else None; `status` the
    library's status name."""

    def __init__(self, status, message, file=None, position=None, path=None):
        super().__init__(message)
        self.status, self.message = status, message
        self.file, self.position, self.path = file, position, path


class InputError(Error, ValueError):
    """The input is malformed or means something impossible."""


class InfeasibleError(Error):
    """The problem has no answer that satisfies its constraints."""


class FileError(Error, OSError):
    """A file could not be opened, read or written."""


class ArgumentError(Error, ValueError):
    """A call's argument is out of range (an option, an assignment's length)."""


_CLASSES = {"input error": InputError, "infeasible": InfeasibleError, "i/o error": FileError,
            "invalid argument": ArgumentError}


def _from_status(status, message, name):
    """Builds the exception for a library error (called from C)."""
    file = position = path = None
    # "FILE: byte N: ..." (IOPDDL) or "FILE:L:C: ..." (the JSON readers).
    if name and message.startswith(name + ":"):
        file = name
        at = len(name) + 1
        found = _POSITION.match(message, at + 1 if message.startswith(" ", at) else at)
        if found:
            position, path = found.group(1), found.group(2)
    if status == "out of memory":
        return MemoryError(message)
    return _CLASSES.get(status, Error)(status, message, file, position, path)
