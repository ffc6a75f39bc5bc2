#!/usr/bin/env python3
"""Checks that the README's quick-start program is examples/quickstart/main.cpp, line for line
(the install test builds and runs that file against the installed package).

usage: check_readme_quickstart.py README.md examples/quickstart/main.cpp
"""
import re
import sys


def main():
    readme_path, source_path = sys.argv[1], sys.argv[2]
    readme = open(readme_path, encoding="utf-8").read()
    source = open(source_path, encoding="utf-8").read()
    blocks = [b for b in re.findall(r"```cpp\n(.*?)```", readme, re.S)
              if "gcbridge::TrackingError" in b]
    if len(blocks) != 1:
        sys.exit("README.md: expected one ```cpp block using gcbridge::TrackingError, found %d"
                 % len(blocks))
    if blocks[0] != source:
        for k, (a, b) in enumerate(zip(blocks[0].splitlines(), source.splitlines()), start=1):
            if a != b:
                print("line %d differs:\n  README: %s\n  file:   %s" % (k, a, b))
                break
        sys.exit("README.md's quick start differs from " + source_path)
    print("README quick start: %d lines, the same as %s" % (len(source.splitlines()), source_path))


if __name__ == "__main__":
    main()
