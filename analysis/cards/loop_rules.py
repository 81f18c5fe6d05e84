"""The timed-loop audit's vocabulary (test/audit/loop_audit.py). A family module may have

    LOOP_RULES     {rule: {"kernel": mangled-name pattern, "sass": (allowed opcodes, required form(s)),
                           "ptx": (allowed prefixes, required prefix), "arch"/"not_arch", bank checks}}
    LOOP_NEGATIVE  {name: {"kernel": pattern, "rule": a rule that must reject that kernel, "arch",
                           "kinds": the listings that can show it, ("sass",) where PTX cannot}}

what its kernels' timed loops may hold, and kernels the audit must reject (an audit that cannot catch them
catches nothing). SASS entries are opcode prefixes (the part before the first '.'); PTX entries are instruction
prefixes. The audit finds the rules here as the card finds card rules."""
import importlib
import pkgutil

from analysis.cards import families

# Loop control: a counter add, a compare and the branch.
SASS_CONTROL = frozenset({"IADD3", "VIADD", "UIADD3", "ISETP", "BRA", "NOP"})
PTX_CONTROL = ("add.s32", "setp.", "bra")


def collect():
    """(rules, negatives) of every family module, each name once."""
    rules, negatives = {}, {}
    for info in sorted(pkgutil.iter_modules(families.__path__), key=lambda i: i.name):
        if info.name.startswith("_"):
            continue
        module = importlib.import_module(f"{families.__name__}.{info.name}")
        for mine, theirs in ((getattr(module, "LOOP_RULES", {}), rules), (getattr(module, "LOOP_NEGATIVE", {}), negatives)):
            for name, spec in mine.items():
                if name in theirs:
                    raise ValueError(f"loop rule {name} declared twice ({module.__name__})")
                theirs[name] = spec
    return rules, negatives
