"""MemTest: a pattern test over the GPU's free memory (own address and random patterns, each with its complement);
a word read other than written is a wrong result, named in the run's verdict (docs/experiments/memtest.md)."""
from analysis.model.values import Value, short

FAMILIES = ("MemTest",)
NOISE = {}  # one pass over the memory, its time set by how much was free: compare leaves it alone

ORDER = 52
SECTION = "Memory test"


def card(report):
    rows = [r for r in report.rows("MemTest/patterns") if r.value("tested_bytes")]
    if not rows:
        yield Value.missing("memory.pattern_test", SECTION, "pattern test of the free memory", "B")
        return
    row = max(rows, key=lambda r: r.value("tested_bytes"))
    tested, wrong = row.value("tested_bytes"), row.value("wrong_words") or 0
    seconds = float(row["real_time"]) * 1e-9 if row.get("time_unit", "ns") == "ns" else None
    rounds = row.value("memtest_rounds") or 1
    rate = f", {tested * 8 * rounds / seconds / 1e12:.2f} TB/s over its 8 passes" if seconds else ""
    text = f"{tested / 1e9:.1f} GB tested{rate}: {wrong:.0f} words read wrong"
    if rounds > 1:
        text = text.replace(" tested", f" tested {rounds:.0f} times")
    yield Value("memory.pattern_test", SECTION, "pattern test of the free memory", tested, "B", short(row["run_name"]),
                text + (f" ({row.get('label')})" if wrong else ""), better="info")
    # A word read wrong is a wrong result (exit 8) whatever the limits say; as the chip's own check it is what the
    # memtest preset's verdict judges.
    yield Value("memory.pattern_test_wrong_words", SECTION, "words read other than written", wrong, "words",
                short(row["run_name"]), f"{wrong:.0f}", better="lower",
                limit={"high": 0, "against": "against what was written", "source": "every word must read as written (docs/experiments/memtest.md)"})
