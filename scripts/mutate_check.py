#!/usr/bin/env python3
"""ctest mutate_tool: scripts/mutate on a toy C program whose tests miss a boundary.

grade()'s tests never try s = 50, so `s >= 50` -> `s > 50` and 50 -> 51 must survive; every other
mutant of grade() and countdown() must be killed, except `n -= 1` -> `n -= 0`, which never ends and
must time out. The file must come back unchanged. Then the errors: an unknown kind, a missing file,
tests that fail before any mutation.
"""
import os
import re
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TOY = """#include <stdio.h>
static int grade(int s) { return s >= 50 ? 1 : 0; }
static int countdown(int n) { int k = 0; while (n > 0) { n -= 1; k += 2; } return k; }
int main(void) {
  int bad = 0;
  if (grade(80) != 1) bad = 1;  /* 80 > 50 */
  if (grade(10) != 0) bad = 1;
  if (countdown(3) != 6) bad = 1;
  puts(bad ? "FAIL" : "ok");
  return bad;
}
"""


def check(cond, what, text=""):
    if not cond:
        print(f"FAILED: {what}\n{text[-3000:]}")
        sys.exit(1)


def mutate(*args):
    return subprocess.run([sys.executable, os.path.join(ROOT, "scripts", "mutate")] + list(args),
                          capture_output=True, text=True)


def main():
    with tempfile.TemporaryDirectory(prefix="relgpu_mutate_") as tmp:
        src, exe, md = (os.path.join(tmp, n) for n in ("toy.c", "toy", "out.md"))
        with open(src, "w") as f:
            f.write(TOY)
        build = f"cc -O0 -o {exe} {src}"
        r = mutate(src, "--build-cmd", build, "--test-cmd", exe, "--lines", "2-3", "--timeout", "5",
                   "--markdown", md)
        out = r.stdout + r.stderr
        check(r.returncode == 0, f"exit {r.returncode}", out)
        m = re.search(r"(\d+) mutants: (\d+) killed, (\d+) timed out, (\d+) survived, (\d+) did not build", out)
        check(m, "summary line", out)
        total, killed, timed, survived, nobuild = map(int, m.groups())
        check((timed, survived, nobuild) == (1, 2, 0) and killed == total - 3 and killed >= 5,
              f"verdicts: {m.group(0)}", out)
        page = open(md).read()
        check("`static int grade(int s) { return s > 50 ? 1 : 0; }`" in page
              and "`static int grade(int s) { return s >= 51 ? 1 : 0; }`" in page, "survivors on the page", page)
        check(open(src).read() == TOY, "the file is restored")
        left = subprocess.run(["pgrep", "-f", exe], capture_output=True, text=True).stdout.split()
        check(not left, f"the hung mutant's process was killed (still running: {left})")
        r = mutate(src, "--list", "--lines", "1-3")
        check(r.returncode == 0 and "countdown" in r.stdout and "stdio" not in r.stdout, "--list", r.stdout)
        r = mutate(src, "--list", "--lines", "6-6")
        check("grade(81)" in r.stdout and "/* 80 >= 50 */" not in r.stdout and "/* 81" not in r.stdout,
              "code on the line mutated, its comment not", r.stdout)

        r = mutate(src, "--ops", "rel,nope", "--list")
        check(r.returncode == 2 and "unknown kind 'nope'" in r.stderr, "unknown kind", r.stderr)
        r = mutate(os.path.join(tmp, "missing.c"), "--list")
        check(r.returncode == 2 and "no such file" in r.stderr, "missing file", r.stderr)
        r = mutate(src, "--build-cmd", build, "--test-cmd", "false")
        check(r.returncode == 2 and "unmutated tests fail" in r.stderr, "failing tests refused", r.stderr)
        check(open(src).read() == TOY, "the file is untouched after a refusal")
    print("mutate_tool: ok")


if __name__ == "__main__":
    main()
