#!/usr/bin/env python3
"""ctest results_targets: docs/results/targets.md quotes only what its pages say.

targets.md is written by hand from the generated pages. Each of its sections
names its pages as links in its heading; every number in a row's "ours" column
must occur, as written, in one of those pages. A page regenerated with other
numbers then fails this check until the table is re-read. It is a check on
text, not on meaning: a number that a page holds in another place passes.

  scripts/targets_check.py [--file targets.md]   exit 0 if every number is found, 1 with the misses
  scripts/targets_check.py --self-test            also shows that a changed number is caught
"""
import argparse
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
RESULTS = os.path.join(ROOT, "docs", "results")
# A number with its sign; a '-' right after a digit is a range dash, not a sign.
NUMBER = re.compile(r"(?<![\d.])(?:(?<![\w.])[-+])?\d[\d,]*(?:\.\d+)?")


def numbers(cell):
    return NUMBER.findall(re.sub(r"`[^`]*`", "", cell))  # config keys in backquotes are names


def found(n, corpus):
    """n as a whole number in corpus: 5.5 is not found in 25.57 or -5.57."""
    return re.search(r"(?<![\d.,])" + re.escape(n) + r"(?![\d]|[.,]\d)", corpus) is not None


def check(text, read=lambda p: open(p).read()):
    """Returns (numbers checked, list of misses as strings)."""
    misses, checked = [], 0
    for sec in re.split(r"\n## ", text)[1:]:
        head = sec.splitlines()[0]
        pages = re.findall(r"\]\(([\w./]+\.md)\)", head)
        if not pages:
            misses.append(f"section '{head}': names no page to check against")
            continue
        corpus = "".join(read(os.path.normpath(os.path.join(RESULTS, p))) for p in pages)
        cols = None
        for line in sec.splitlines():
            if not line.startswith("|") or set(line) <= set("|-: "):
                continue
            cells = [c.strip() for c in line.strip().strip("|").split("|")]
            if cols is None:
                cols = cells
                ours = next((i for i, c in enumerate(cols) if c.startswith("ours")), None)
                if ours is None:
                    misses.append(f"section '{head}': no column headed 'ours'")
                    break
                continue
            for n in numbers(cells[ours]):
                checked += 1
                if not found(n, corpus):
                    misses.append(f"{head.split(' (')[0]} / {cells[0]}: {n} is in none of {', '.join(pages)}")
    return checked, misses


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--file", default=os.path.join(RESULTS, "targets.md"))
    ap.add_argument("--self-test", action="store_true")
    a = ap.parse_args()
    try:
        text = open(a.file).read()
        checked, misses = check(text)
    except OSError as e:
        sys.exit(f"targets_check: {e}")
    for m in misses:
        print("targets_check:", m)
    print(f"targets_check: {checked} numbers checked, {len(misses)} not found")
    if misses or checked == 0:
        sys.exit(1)
    if a.self_test:
        # Mutants must be caught: a row's number with a digit added, and with its sign flipped, each
        # where the pages do not hold the mutated number anywhere (the check looks for it as text).
        row = next(l for l in text.splitlines() if l.startswith("| IPC, 70% VL-RF |"))
        for old, new in (("-5.5%", "-5.57%"), ("-5.5%", "+5.5%")):
            _, m = check(text.replace(row, row.replace(old, new, 1)))
            if not m:
                sys.exit(f"targets_check: self-test: changing {old} to {new} was not caught")
        print("targets_check: self-test: both mutants caught")

if __name__ == "__main__":
    main()
