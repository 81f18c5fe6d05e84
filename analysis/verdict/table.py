"""The one table of verdicts (analysis/verdict/verdicts.json: name, exit status, action, most severe first), read by
every tool that gives or reads a verdict; CMake writes the same table into gpubench (cmake/VerdictTable.cmake)."""
import json
import os

TABLE_PATH = os.path.join(os.path.dirname(os.path.abspath(__file__)), "verdicts.json")
with open(TABLE_PATH) as _f:
    TABLE = json.load(_f)
BY_NAME = {v["name"]: v for v in TABLE["verdicts"]}
ORDER = [v["name"] for v in TABLE["verdicts"]]  # most severe first
WRONG, BUSY, ABNORMAL, INCOMPLETE, NO_LIMITS, NORMAL = (BY_NAME[n]["exit"] for n in
                                                        ("wrong", "busy", "abnormal", "incomplete", "no_limits",
                                                         "normal"))
MISSING = BY_NAME["missing"]["exit"]
NAME_OF = {v["exit"]: v["name"] for v in TABLE["verdicts"]}


def action(status):
    """"drain", "keep" (a verdict's), or "" for an exit status that is no verdict."""
    name = NAME_OF.get(status)
    return BY_NAME[name]["action"] if name else ""


def worst(statuses):
    """The most severe verdict status of `statuses` (normal for none)."""
    known = [s for s in statuses if s in NAME_OF]
    return min(known, key=lambda s: ORDER.index(NAME_OF[s])) if known else NORMAL


def exit_help():
    """The exit statuses, one per line, for a script's --help."""
    return "; ".join(f"{v['exit']} {v['name'].replace('_', ' ')}" for v in sorted(TABLE["verdicts"],
                                                                                  key=lambda v: v["exit"]))


def summary(status, line, **more):
    """A verdict as the card's and the node card's JSON keep it."""
    return {"name": NAME_OF[status], "exit": status, "action": action(status), "line": line} | more
