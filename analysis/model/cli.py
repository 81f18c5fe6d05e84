"""What every script of the package does with bad input: one line on stderr naming the script and the
problem, and a non-zero exit, never a traceback."""
import os
import re
import sys

from analysis.model import report as report_model

BAD_INPUT = 2


class UsageError(Exception):
    """A problem with what the user asked for, said in one line."""


def script():
    return os.path.basename(sys.argv[0]) or "gpubench-analysis"


def fail(message, status=BAD_INPUT):
    print(f"{script()}: {message}", file=sys.stderr)
    return status


def load(paths):
    """The report of `paths`; a file that cannot be read as a gpubench report is a UsageError."""
    try:
        return report_model.load(paths)
    except report_model.ReportError as e:
        raise UsageError(str(e)) from None


def regex(pattern, flag):
    """A compiled --filter-style regex, or a UsageError naming the flag."""
    try:
        return re.compile(pattern)
    except re.error as e:
        raise UsageError(f"{flag}: invalid regular expression {pattern!r}: {e}") from None


def writable(path, what="output"):
    """`path` if a file can be written there (its folder exists and is writable), else a UsageError."""
    folder = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(folder):
        raise UsageError(f"cannot write the {what} {path}: folder {folder} does not exist")
    if not os.access(folder, os.W_OK) or (os.path.exists(path) and not os.access(path, os.W_OK)):
        raise UsageError(f"cannot write the {what} {path}: permission denied")
    if os.path.isdir(path):
        raise UsageError(f"cannot write the {what} {path}: it is a folder")
    return path


def write_json(path, data, what):
    """`data` as indented JSON at `path` (checked writable first), ending in a newline."""
    import json
    writable(path, what)
    with open(path, "w") as f:
        json.dump(data, f, indent=1)
        f.write("\n")


def main(entry):
    """Runs `entry()` and returns its exit status; bad input ends in one line and exit 2."""
    try:
        return entry()
    except UsageError as e:
        return fail(str(e))
    except OSError as e:  # writing an output failed after the checks (disk full, ...)
        return fail(f"{e.filename or ''}: {e.strerror or e}".lstrip(": "))
    except KeyboardInterrupt:
        return 130
