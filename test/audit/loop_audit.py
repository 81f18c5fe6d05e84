#!/usr/bin/env python3
"""Audit of the timed loops: inside each kernel's timed region (between its two clock64 reads), every
loop body holds only the instructions its experiment means to time, and no kernel spills to local
memory. Reads SASS (cuobjdump -sass or nvdisasm, from the toolkit) or PTX (nvcc -ptx: available
wherever gpubench builds, so CI audits too).

    loop_audit.py --sass-of gpubench          # SASS of a built binary; exit 77 (skip) without a tool
    loop_audit.py --ptx audited_kernels.ptx   # the same rules on PTX
    loop_audit.py --ptx k.ptx --expect-violation indexed_as_direct   # the audit must catch this one
"""
import argparse
import os
import re
import shutil
import subprocess
import sys

SKIP = 77  # ctest's SKIP_RETURN_CODE

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
from analysis.cards import loop_rules  # noqa: E402

# Each family's rules live in its analysis module (analysis/cards/loop_rules.py says how).
RULES, NEGATIVE = loop_rules.collect()


def register_reads(loop, banks=2):
    """[(FFMA, most registers it reads from one bank)] for a loop's FFMAs: a source the previous FFMA
    marked .reuse in the same operand slot comes from the reuse cache, not from a bank."""
    reads, cached = [], {}
    for ins in loop:
        if not ins.startswith("FFMA"):
            continue
        operands = [o.strip() for o in ins.split(None, 1)[1].split(",")]
        per_bank, marked = {}, {}
        for slot, operand in enumerate(operands[1:]):
            number = re.fullmatch(r"R(\d+)(\.reuse)?", operand)
            if not number:
                continue
            register = int(number.group(1))
            if cached.get(slot) != register:
                per_bank[register % banks] = per_bank.get(register % banks, 0) + 1
            if number.group(2):
                marked[slot] = register
        cached = marked
        reads.append((ins, max(per_bank.values(), default=0)))
    return reads


def bank_model_cycles(loop):
    """Cycles per FFMA if each of two banks gives one register per cycle: the most reads from one bank."""
    reads = register_reads(loop)
    return sum(max(1, most) for _, most in reads) / len(reads) if reads else None


def bank_problems(loop, rule):
    """The register-bank rules above, on one loop."""
    problems = []
    if "three_in_one_bank" in rule:
        reads = register_reads(loop)
        three = sum(1 for _, most in reads if most >= 3)
        if not reads or three < rule["three_in_one_bank"] * len(reads):
            problems.append(f"{three} of {len(reads)} FFMAs read three registers from one bank, planned at least "
                            f"{rule['three_in_one_bank']:.0%}")
        return problems
    lanes = rule["lanes"]
    for ins in loop:
        if not ins.startswith("FFMA"):
            continue
        operands = [o.strip() for o in ins.split(None, 1)[1].split(",")]
        if any(".reuse" in o for o in operands):
            problems.append(f"operand reuse: {ins}")
        numbers = [re.fullmatch(r"R(\d+)(?:\.reuse)?", o) for o in operands]
        if len(operands) != 4 or not all(numbers):
            problems.append(f"not four register operands: {ins}")
            continue
        d, a, b, c = (int(m.group(1)) for m in numbers)
        if d != c:
            problems.append(f"accumulator is not the destination: {ins}")
        if c % 4 != lanes[0] or sorted((a % 4, b % 4)) != sorted(lanes[1:]):
            problems.append(f"registers mod 4 (c, a, b) = ({c % 4}, {a % 4}, {b % 4}), planned {lanes}: {ins}")
    return problems


def functions_from_sass(text):
    """[(mangled name, [(address, instruction)])] from cuobjdump -sass / nvdisasm output; a kernel that
    several translation units hold (a static kernel of a shared header) appears once per copy."""
    functions, current = [], None
    for line in text.splitlines():
        header = re.search(r"Function\s*:\s*(\S+)", line) or re.match(r"^\s*\.text\.(\S+):", line)
        if header:
            current = []
            functions.append((header.group(1), current))
            continue
        body = re.match(r"\s*/\*([0-9a-f]{4,})\*/\s+(.*?)\s*;", line)
        if current is not None and body:
            current.append((int(body.group(1), 16), body.group(2).strip()))
    return functions


def functions_from_ptx(text):
    """[(mangled name, [(index, instruction or 'label:')])] from PTX."""
    functions, current = [], None
    for line in text.splitlines():
        entry = re.match(r"\s*\.(?:visible\s+)?\.?entry\s+(\S+?)\(", line) or re.match(r"\s*\.entry\s+(\S+?)\(", line)
        if entry:
            current = []
            functions.append((entry.group(1), current))
            continue
        if current is None:
            continue
        stripped = line.strip()
        if not stripped or stripped.startswith("//") or stripped.startswith(".") or stripped in ("{", "}"):
            continue
        current.append((len(current), stripped.rstrip(";").strip()))
    return functions


def opcode(instruction):
    """The instruction without its predicate: '@P0 BRA 0x70' -> 'BRA 0x70'."""
    return re.sub(r"^@!?%?\w+\s+", "", instruction)


def timed_loops_sass(listing):
    clocks = [i for i, (_, ins) in enumerate(listing) if "SR_CLOCKLO" in ins]
    if len(clocks) < 2:
        return None
    first, last = clocks[0], clocks[-1]
    address_index = {address: i for i, (address, _) in enumerate(listing)}
    loops = []
    for i in range(first, last):
        branch = re.match(r"BRA\s+(?:`\(\.L_x_\d+\)|0x([0-9a-f]+))", opcode(listing[i][1]))
        if branch and branch.group(1):
            target = address_index.get(int(branch.group(1), 16))
            if target is not None and first < target <= i:  # a backward branch inside the region: a loop
                loops.append([opcode(ins) for _, ins in listing[target:i + 1]])
    return loops


def timed_loops_ptx(listing):
    clocks = [i for i, (_, ins) in enumerate(listing) if "%clock64" in ins]
    if len(clocks) < 2:
        return None
    first, last = clocks[0], clocks[-1]
    labels = {ins[:-1]: i for i, (_, ins) in enumerate(listing) if ins.endswith(":")}
    loops = []
    for i in range(first, last):
        branch = re.match(r"bra(?:\.uni)?\s+(\S+)", opcode(listing[i][1]))
        if branch and branch.group(1) in labels and first < labels[branch.group(1)] <= i:
            loops.append([opcode(ins) for _, ins in listing[labels[branch.group(1)] + 1:i + 1] if not ins.endswith(":")])
    return loops


def check(listing, kind, rule):
    """Violations of `rule` in one kernel's listing (empty: it passes)."""
    allowed, required = RULES[rule][kind]
    loops = (timed_loops_sass if kind == "sass" else timed_loops_ptx)(listing)
    if loops is None:
        return ["no timed region (fewer than two clock64 reads)"]
    if not loops:
        return ["no loop inside the timed region"]
    problems = []
    for loop in loops:
        for ins in loop:
            if kind == "sass":
                if ins.split(".")[0].split()[0] not in allowed:
                    problems.append(f"loop holds {ins}")
            elif not ins.startswith(tuple(allowed)):
                problems.append(f"loop holds {ins}")
        for form in (required if isinstance(required, tuple) else (required,)):
            if not any(re.search(form, ins) for ins in loop):
                problems.append(f"a loop without the timed instruction ({form}): {loop}")
        if kind == "sass" and ("lanes" in RULES[rule] or "three_in_one_bank" in RULES[rule]):
            problems += bank_problems(loop, RULES[rule])
    spills = [ins for _, ins in listing if re.match(r"(@\S+\s+)?(LDL|STL)\b", ins) or re.match(r"(ld|st)\.local", ins)]
    problems += [f"local-memory access (a spill?): {ins}" for ins in spills]
    return problems


def sass_text(binary):
    for tool, args in (("cuobjdump", ["-sass"]), ("nvdisasm", None)):
        path = shutil.which(tool) or (f"/usr/local/cuda/bin/{tool}" if os.path.exists(f"/usr/local/cuda/bin/{tool}") else None)
        if path and args is not None:
            return subprocess.run([path, *args, binary], capture_output=True, text=True, check=True).stdout
    return None


def find(functions, pattern):
    return [(name, listing) for name, listing in functions if re.search(pattern, name)]


def expect_violation(name, functions, kind, text):
    """0 when the audit catches the planted violation `name` (LOOP_NEGATIVE), 1 when it does not, SKIP when
    this listing cannot show it (another architecture's code, or a SASS-only rule on PTX)."""
    negative = NEGATIVE[name]
    if kind not in RULES[negative["rule"]] or kind not in negative.get("kinds", (kind,)):
        print(f"skip   {name}: a {kind} listing cannot show it")
        return SKIP
    if negative.get("arch") and negative["arch"] not in text:
        print(f"skip   {name}: concerns {negative['arch']} code, which this listing lacks")
        return SKIP
    names = find(functions, negative["kernel"])
    if not names:
        print(f"FAILED {name}: no kernel matches {negative['kernel']}")
        return 1
    problems = check(names[0][1], kind, negative["rule"])
    print(f"{'ok    ' if problems else 'FAILED'} {name} ({kind}): {len(problems)} violation(s) found"
          f"{', as it must' if problems else ': the audit missed it'}")
    for problem in problems[:5]:
        print("    " + problem)
    return 0 if problems else 1


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    source = parser.add_mutually_exclusive_group(required=True)
    source.add_argument("--sass-of", help="a built binary: its SASS through cuobjdump")
    source.add_argument("--sass", help="a saved SASS listing")
    source.add_argument("--ptx", help="a PTX file")
    parser.add_argument("--expect-violation", choices=sorted(NEGATIVE), help="pass only if the audit catches it")
    parser.add_argument("--expect-violations", action="store_true",
                        help="pass only if the audit catches every planted violation this listing can show")
    args = parser.parse_args()
    if args.sass_of:
        text = sass_text(args.sass_of)
        if text is None:
            print("SKIPPED: neither cuobjdump nor nvdisasm is installed (the CUDA toolkit's, or the "
                  "nvidia-cuda-cuobjdump wheel); the PTX audit still runs")
            return SKIP
        kind = "sass"
    elif args.sass:
        text, kind = open(args.sass).read(), "sass"
    else:
        text, kind = open(args.ptx).read(), "ptx"
    functions = (functions_from_sass if kind == "sass" else functions_from_ptx)(text)

    if args.expect_violation:
        return expect_violation(args.expect_violation, functions, kind, text)
    if args.expect_violations:
        # Every family's planted violation this listing can show (LOOP_NEGATIVE): each must be caught.
        statuses = [expect_violation(name, functions, kind, text) for name in sorted(NEGATIVE)]
        caught, failed = statuses.count(0), statuses.count(1)
        print(f"{caught} planted violation(s) caught, {failed} missed, {statuses.count(SKIP)} not in this listing")
        return 1 if failed else (0 if caught else SKIP)

    failed = 0
    for rule, spec in RULES.items():
        if kind not in spec:
            print(f"skip   {rule} ({kind}): SASS only")
            continue
        if spec.get("arch") and spec["arch"] not in text:
            print(f"skip   {rule}: no {spec['arch']} code in this listing")
            continue
        if spec.get("not_arch") and spec["not_arch"] in text:
            print(f"skip   {rule}: emulated on {spec['not_arch']} (the rows skip; audit.sass_rejects_planted catches emulated_fp8_mma)")
            continue
        names = find(functions, spec["kernel"])
        if not names:
            print(f"FAILED {rule}: no kernel matches {spec['kernel']}")
            failed += 1
            continue
        for name, listing in names:
            problems = check(listing, kind, rule)
            model = ""
            if kind == "sass" and rule.startswith("ffma_") and rule != "ffma_chain":
                loops = timed_loops_sass(listing) or [[]]
                cycles = bank_model_cycles(loops[0])
                model = f" (two-bank model: {cycles:.2f} cycles per FFMA)" if cycles else ""
            print(f"{'ok    ' if not problems else 'FAILED'} {rule} ({kind}): {name}{model}")
            for problem in problems[:10]:
                print("    " + problem)
            failed += bool(problems)
    print(f"{len(RULES)} rules, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
