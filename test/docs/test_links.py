#!/usr/bin/env python3
"""Every relative link of README.md and docs/ resolves, and to a file that is installed with them
(README.md and docs/ go to share/doc/gpubench/ side by side), so the links work in the source tree, on
GitHub and where gpubench is installed."""
import glob
import os
import re
import unittest

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")


def documents():
    return [os.path.join(ROOT, "README.md")] + sorted(glob.glob(os.path.join(ROOT, "docs", "**", "*.md"),
                                                                recursive=True))


def relative_links(path):
    with open(path, encoding="utf-8") as f:
        text = f.read()
    text = re.sub(r"```.*?```", "", text, flags=re.S)  # code blocks hold commands, not links
    for match in LINK.finditer(text):
        target = match.group(1)
        if re.match(r"^[a-z][a-z0-9+.-]*:", target) or target.startswith("#"):
            continue
        yield target.split("#")[0]


def installed(path):
    relative = os.path.relpath(path, ROOT)
    return relative == "README.md" or relative == "docs" or relative.startswith("docs" + os.sep)


class DocumentLinks(unittest.TestCase):
    def test_every_link_resolves_to_an_installed_file(self):
        broken, outside = [], []
        for document in documents():
            for target in relative_links(document):
                resolved = os.path.normpath(os.path.join(os.path.dirname(document), target))
                where = f"{os.path.relpath(document, ROOT)}: {target}"
                if not os.path.exists(resolved):
                    broken.append(where)
                elif not installed(resolved):
                    outside.append(where)
        self.assertEqual(broken, [], "links to nothing")
        self.assertEqual(outside, [], "links to files not installed with the docs (README.md and docs/)")

    def test_the_documents_have_links(self):
        # The check above passes vacuously if the pattern stops matching.
        self.assertGreater(sum(len(list(relative_links(d))) for d in documents()), 50)


if __name__ == "__main__":
    unittest.main()
