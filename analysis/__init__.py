"""gpubench's analysis package: what a run concluded, from its JSON. Folders are floors, lowest first; a module
imports only from its own floor or below (test/analysis/test_imports.py):

    model/      the run as data: report, row, values, levels, archive (committed runs), cli (bad input)
    cards/      the card: families/ (one module per family), card model, noise classes, physics, plots
    comparing/  two runs' rows judged with their intervals; two cards side by side
    verdict/    limits, layers, links, the verdict as data (judge) and in words (wording), node card, table
    running/    the verdict's second measurement: the only module that runs gpubench
    store/      each board's history and its drift
    *.py        the command lines (card, compare, fleet, history, prometheus, ...); tables/ makes the limits

Scripts run as `python3 analysis/card.py RUN.json` or `python3 -m analysis.card RUN.json`.
"""
