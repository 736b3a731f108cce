"""How a problem reaches the C library: a path is read there (plain or
gzip); a dict is written as JSON text here and read from memory there, so
it means exactly what the same file means to the CLI."""

import json
import os


def source(problem, what):
    """(text_or_path, is_path, name) for one of the library's readers.
    `what` names a dict in error messages ("<problem>")."""
    if isinstance(problem, (str, os.PathLike)):
        path = os.fspath(problem)
        return path, True, path
    if isinstance(problem, dict):
        return json.dumps(problem), False, "<%s>" % what
    raise TypeError("%s must be a path or a dict, not %s" % (what, type(problem).__name__))


def text(document, what):
    """(JSON text, name) of a document given as a path or a dict, for the
    readers that take text only."""
    if isinstance(document, (str, os.PathLike)):
        path = os.fspath(document)
        with open(path, encoding="utf-8") as f:
            return f.read(), path
    if isinstance(document, dict):
        return json.dumps(document), "<%s>" % what
    raise TypeError("%s must be a path or a dict, not %s" % (what, type(document).__name__))
