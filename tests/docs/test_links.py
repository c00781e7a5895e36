#!/usr/bin/python3
"""ctest Docs.LinkCheckerFindsBrokenLinks: docs/site/check_links.py on a small site with a link to a
missing page, a link to a missing anchor, and links that are fine (an anchor that exists, a relative
image, an external address it must not fetch): exactly the two broken ones are reported.

    test_links.py DOCS_SITE_DIR
"""
import os
import sys
import tempfile

sys.path.insert(0, sys.argv[1])
import check_links  # noqa: E402

with tempfile.TemporaryDirectory() as root:
    os.makedirs(os.path.join(root, "sub"))
    pages = {
        "index.html": '<a href="sub/b.html#here">ok</a> <a href="sub/b.html#gone">anchor</a> '
                      '<a href="missing.html">page</a> <img src="sub/pic.svg"> <a href="https://example.org/x">ext</a> '
                      '<a href="#top">self</a><h1 id="top">t</h1>',
        "sub/b.html": '<section id="here"></section><a href="../index.html#top">back</a>',
        "sub/pic.svg": "<svg/>",
    }
    for name, body in pages.items():
        with open(os.path.join(root, name), "w") as f:
            f.write(body)
    problems = check_links.check(root)
    expected = ["index.html: sub/b.html#gone (no anchor #gone in sub/b.html)", "index.html: missing.html (no such file)"]
    if sorted(problems) != sorted(expected):
        sys.exit(f"expected {expected}, got {problems}")
print("the checker reports exactly the two broken links")
