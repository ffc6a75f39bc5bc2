#!/usr/bin/env python3
"""Checks that the README's "drop it into your Bullet app" example is the code that
tests/readme_example_test.cpp runs: the README block, without its #include lines, ends with the
test's lines between "// README example begins." and "// README example ends." (compared with
runs of spaces collapsed), and every #include of the block is in the test file.

usage: check_readme_example.py README.md tests/readme_example_test.cpp
"""
import re
import sys


def normalized(lines):
    """Non-empty lines, stripped, with runs of spaces collapsed."""
    return [re.sub(r"\s+", " ", line.strip()) for line in lines if line.strip()]


def readme_block(readme):
    """The ```cpp block that attaches a plugin to an inferred model."""
    for block in re.findall(r"```cpp\n(.*?)```", readme, re.S):
        if "gcbridge::attach(*world, robot.model" in block:
            return block.splitlines()
    sys.exit("README.md: no ```cpp block with gcbridge::attach(*world, robot.model, ...)")


def test_region(test):
    match = re.search(r"// README example begins\.\n(.*?)\n\s*// README example ends\.", test, re.S)
    if match is None:
        sys.exit("readme_example_test.cpp: the README example markers are missing")
    return match.group(1).splitlines()


def main():
    readme_path, test_path = sys.argv[1], sys.argv[2]
    readme = open(readme_path, encoding="utf-8").read()
    test = open(test_path, encoding="utf-8").read()
    block = normalized(readme_block(readme))
    includes = [line for line in block if line.startswith("#include")]
    code = [line for line in block if not line.startswith("#include")]
    region = normalized(test_region(test))
    failed = False
    if code[-len(region):] != region:
        failed = True
        print("README example and test differ (README block end vs test region):")
        for readme_line, test_line in zip(code[-len(region):], region):
            mark = "  " if readme_line == test_line else "! "
            print(mark + "README: " + readme_line)
            if readme_line != test_line:
                print(mark + "test:   " + test_line)
    test_lines = normalized(test.splitlines())
    for include in includes:
        if include not in test_lines:
            failed = True
            print("README includes " + include + ", the test does not")
    if failed:
        sys.exit(1)
    print("README example: %d lines match the test's region, %d includes present"
          % (len(region), len(includes)))


if __name__ == "__main__":
    main()
