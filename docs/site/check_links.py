#!/usr/bin/python3
"""Checks every internal link of a built HTML site: the file it names exists, and the anchor after '#'
is an id (or a name) in that file. External links (with a scheme: https:, mailto:) are not fetched.

    check_links.py HTML_DIR      (prints each broken link; exit status 1 when there is one)
"""
import os
import sys
from html.parser import HTMLParser
from urllib.parse import unquote, urlsplit


class _Page(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.ids, self.links = set(), []

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        for key in ("id", "name"):
            if a.get(key):
                self.ids.add(a[key])
        for key in ("href", "src"):
            if a.get(key) is not None and not (tag == "link" and a.get("rel") in ("canonical",)):
                self.links.append(a[key])


def _parse(path, cache):
    if path not in cache:
        p = _Page()
        with open(path, encoding="utf-8", errors="replace") as f:
            p.feed(f.read())
        cache[path] = p
    return cache[path]


def check(root):
    """The broken internal links of every .html file under `root`, as 'page: link (why)' lines."""
    cache, problems = {}, []
    for d, _, files in os.walk(root):
        for name in sorted(files):
            if not name.endswith(".html"):
                continue
            page = os.path.normpath(os.path.join(d, name))  # (the key a link to it is parsed under too)
            for link in _parse(page, cache).links:
                u = urlsplit(link)
                if u.scheme or u.netloc or link.startswith("//"):
                    continue  # external: not fetched
                target = os.path.normpath(os.path.join(d, unquote(u.path))) if u.path else page
                where = os.path.relpath(page, root)
                if not os.path.exists(target):
                    problems.append(f"{where}: {link} (no such file)")
                elif u.fragment and target.endswith(".html") and unquote(u.fragment) not in _parse(target, cache).ids:
                    problems.append(f"{where}: {link} (no anchor #{u.fragment} in {os.path.relpath(target, root)})")
    return problems


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    problems = check(sys.argv[1])
    for p in problems:
        print(p)
    sys.exit(1 if problems else 0)


if __name__ == "__main__":
    main()
