"""Committed results keep their raw files in one xz archive per folder (raw.tar.xz: runs, logs, cards, a solid
compression of files that share most of their text); a file inside is named as a path through the archive, the way
Python's zipimport names one: docs/results/X/raw.tar.xz/runs/h100-1.json. Every tool reads such a path as the file,
and an archive given where runs are expected stands for every run it holds."""
import fnmatch
import os
import tarfile

SUFFIX = ".tar.xz"
_OPENED = {}  # archive path -> {member: bytes}: an xz archive is read whole once (its members share one stream)


def split(path):
    """(archive, member) of a path through an archive, or (None, None)."""
    parts = path.replace(os.sep, "/").split("/")
    for i, part in enumerate(parts[:-1]):
        if part.endswith(SUFFIX):
            archive = os.sep.join(parts[:i + 1])
            if os.path.isfile(archive):
                return archive, "/".join(parts[i + 1:])
    return None, None


def _members(archive):
    if archive not in _OPENED:
        with tarfile.open(archive, "r:xz") as tar:
            _OPENED[archive] = {m.name: tar.extractfile(m).read() for m in tar.getmembers() if m.isfile()}
    return _OPENED[archive]


def read(path):
    """The bytes of a file, or of a file inside an archive (OSError where neither exists)."""
    archive, member = split(path)
    if archive is None:
        with open(path, "rb") as f:
            return f.read()
    try:
        found = _members(archive)
    except (tarfile.TarError, EOFError, OSError) as e:
        raise OSError(f"cannot read the archive {archive}: {e}") from None
    if member not in found:
        raise FileNotFoundError(f"no {member} in {archive}")
    return found[member]


def exists(path):
    archive, member = split(path)
    return os.path.exists(path) if archive is None else member in _members(archive)


def runs(path, pattern="*.json"):
    """The runs an argument names: an archive stands for each of its members matching `pattern`, a path through one
    whose member is a pattern (raw.tar.xz/runs/h100-?.json) for each member it matches (sorted), anything else for
    itself."""
    if path.endswith(SUFFIX) and os.path.isfile(path):
        archive, member = path, pattern
    else:
        archive, member = split(path)
        if archive is None or not any(c in member for c in "*?["):
            return [path]
    return [f"{archive}/{m}" for m in sorted(_members(archive)) if fnmatch.fnmatch(m, member)]


def expand(paths, pattern="*.json"):
    return [run for path in paths for run in runs(path, pattern)]
