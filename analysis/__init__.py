"""gpubench's analysis package: what a run concluded, from its JSON.

    report.py        the report model: load, merge, split per GPU; every row as data
    levels.py        the staircase rule that reads levels and edges off a sweep
    values.py        a card value, and the formatting the rules share
    families/        one module per experiment family: its card rules (found by the card, no list to edit)
    card.py          assembles the families' values into the card (Markdown, JSON, plots); --compare
    plots.py         figures of a run
    compare.py       two runs, every counter, with significance and a CI threshold
    chase_summary.py normalize_report.py   Markdown tables of one family's sweep
    cli.py           how every script reports bad input: one line on stderr, a non-zero exit

Scripts run as `python3 analysis/card.py RUN.json` or `python3 -m analysis.card RUN.json`.
"""
