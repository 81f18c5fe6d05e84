"""One module per experiment family, each owning its card rules. A module has:

    FAMILIES  the registered family names whose rows it reads
    ORDER     where its values stand on the card (sections appear in the order their first value does)
    card(report)  yields analysis.model.values.Value, one per card quantity, "not measured" ones included

The card finds every module here; adding a family's card rows means adding its module and its test.
"""
import importlib
import pkgutil


def modules():
    """Every family module, in card order."""
    found = [importlib.import_module(f"{__name__}.{info.name}") for info in pkgutil.iter_modules(__path__)
             if not info.name.startswith("_")]
    rules = [m for m in found if hasattr(m, "card")]
    return sorted(rules, key=lambda m: (m.ORDER, m.__name__))
