#!/usr/bin/python3
"""Every path of this repository that a comment or a document names exists.

A comment that names a file which was moved or deleted sends the next reader looking for
nothing. This test reads every source, build and documentation file of the tree and checks
each repository path it names (`core/base/limits.h`, `tests/e2e/BUILD`, `fuzz/README.md`, a
Bazel package in a label such as `//tests/e2e:harness`) against the tree.

The tree is the source tree, not the sandbox: this script's runfile is a link to
<root>/tests/named_paths_test.py, which gives <root> (as the fixture tests find ../shared).
Run by hand from the root: python3 tests/named_paths_test.py
"""
import os
import re
import sys

# Top-level directories whose paths are checked, and the file kinds a comment names.
TOP = r"(?:core|tests|lldb_plugin|gdb_bridge|fuzz|bench|packaging|tools|demo|docs|third_party)"
EXT = r"(?:h|cc|c|py|md|bzl|sh|lds|inc|gdb|json|txt)"
# A path starts at a word's start, or after a '/' (the tree as a checkout names it:
# /work/main/tests/data/threads.py).
PATH = re.compile(r"(?<![A-Za-z0-9_.\-])(" + TOP + r"/[A-Za-z0-9_./\-]*?[A-Za-z0-9_\-]\." + EXT + r")(?![A-Za-z0-9_])")
BUILD_PATH = re.compile(r"(?<![A-Za-z0-9_.\-])(" + TOP + r"(?:/[A-Za-z0-9_.\-]+)*/BUILD)(?![A-Za-z0-9_.])")
# A Bazel label's package: //tests/e2e:harness, //core/walk, //:README.md.
LABEL = re.compile(r"(?<![A-Za-z0-9_:/.])//(" + TOP + r"(?:/[A-Za-z0-9_\-]+)*)(?=[:\s`'\")\],]|$)")

# Names that stand for a family of files, not one (a minor version, a scenario), or for the
# files of a CPython minor pyunwind does not read yet (how to add 3.16).
PLACEHOLDERS = re.compile(r"3NN|3XX|3\.NN|31[6-9]|VERSION|SCENARIO|NAME|\*|<|\.\.\.")

# Files read: text the project writes. Vendored and generated trees are not.
READ_EXT = (".h", ".cc", ".c", ".py", ".md", ".bzl", ".sh", ".lds", ".inc", ".txt", ".gdb")
READ_NAMES = ("BUILD", "WORKSPACE", ".bazelrc", "README.Debian")
SKIP_DIRS = {".git", "third_party"}


def workspace_root():
    here = os.path.realpath(__file__)
    return os.path.dirname(os.path.dirname(here))


def files_to_read(root):
    for top, dirs, files in os.walk(root):
        dirs[:] = sorted(d for d in dirs if d not in SKIP_DIRS and not d.startswith("bazel-"))
        for name in sorted(files):
            if name.endswith(READ_EXT) or name in READ_NAMES:
                yield os.path.join(top, name)
    ci = os.path.join(root, ".ci")
    if os.path.isdir(ci):
        for name in sorted(os.listdir(ci)):
            path = os.path.join(ci, name)
            if os.path.isfile(path):
                yield path


def built_by_package(root, named):
    """Whether `named` is an output its package's BUILD declares (a genrule's outs)."""
    directory = os.path.dirname(named)
    while directory:
        build = os.path.join(root, directory, "BUILD")
        if os.path.isfile(build):
            with open(build, encoding="utf-8") as f:
                return '"' + os.path.relpath(named, directory) + '"' in f.read()
        directory = os.path.dirname(directory)
    return False


def named_paths(text):
    for line_number, line in enumerate(text.splitlines(), 1):
        for match in PATH.finditer(line):
            yield line_number, match.group(1), "file"
        for match in BUILD_PATH.finditer(line):
            yield line_number, match.group(1), "file"
        for match in LABEL.finditer(line):
            yield line_number, match.group(1) + "/BUILD", "package"


def missing_paths(root):
    missing = []
    for path in files_to_read(root):
        try:
            with open(path, encoding="utf-8") as f:
                text = f.read()
        except UnicodeDecodeError:
            continue
        for line_number, named, kind in named_paths(text):
            if PLACEHOLDERS.search(named):
                continue
            if not os.path.exists(os.path.join(root, named)) and not built_by_package(root, named):
                where = os.path.relpath(path, root)
                what = named[: -len("/BUILD")] if kind == "package" else named
                missing.append(f"{where}:{line_number}: names {kind} {what}, which is not in the tree")
    return missing


def main():
    root = workspace_root()
    if not os.path.isfile(os.path.join(root, "WORKSPACE")):
        print(f"not a workspace root: {root}")
        return 1
    missing = missing_paths(root)
    for line in missing:
        print(line)
    print(f"{len(missing)} named paths missing under {root}")
    return 1 if missing else 0


if __name__ == "__main__":
    sys.exit(main())
