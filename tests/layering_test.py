"""The layering of the C++ code, enforced: every `#include "<workspace path>"` of a C++
target's sources and headers names a header of the target itself or of one of its direct
deps (clang's layering_check; GCC has none, so a header of a dependency's dependency compiles
and the BUILD files stop saying what uses what).

The BUILD files are read as the Starlark (a Python subset) they are, with a small evaluator:
literals, lists, `+`, assignments, and the workspace's own macros (a .bzl `def` whose body
calls native.cc_*). Anything else in a C++ rule's srcs, hdrs or deps (a glob, a select, an
unknown macro that might make C++ targets) is an error of this test, never a silent pass.

Usage: layering_test.py [WORKSPACE]; without it, the workspace this file's runfile links to.
"""

import ast
import os
import re
import sys

CC_RULES = {"cc_library", "cc_test", "cc_binary"}
# Rules that make no C++ target: their arguments are not evaluated.
OTHER_RULES = {
    "alias", "exports_files", "filegroup", "genrule", "load", "package", "sh_binary",
    "sh_test", "py_binary", "py_library", "py_test", "java_binary", "java_import",
    "java_library", "licenses", "toolchain", "config_setting", "test_suite",
    # toolchain/BUILD: the C++ toolchain itself, which no C++ target lists as a dependency.
    "cc_toolchain_suite", "cc_toolchain", "cc_toolchain_config",
    # toolchain/arm64.bzl: the files of C++ targets built for arm64, as a filegroup names them.
    "arm64_files",
}
# The attributes of a C++ rule this test reads; any other that changes where headers come
# from would make it wrong, so it refuses them.
REFUSED_CC_ATTRIBUTES = {"includes", "include_prefix", "strip_include_prefix", "textual_hdrs"}
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.MULTILINE)


class BuildError(Exception):
    """A BUILD shape this test does not understand."""


class Unevaluated:
    """A top-level value the evaluator does not handle; an error only where it is used."""

    def __init__(self, where):
        self.where = where


class Target:
    def __init__(self, package, name, rule, srcs=(), hdrs=(), deps=(), outs=(), actual=None):
        self.package, self.name, self.rule = package, name, rule
        self.srcs, self.hdrs, self.deps, self.outs = list(srcs), list(hdrs), list(deps), outs
        self.actual = actual

    @property
    def label(self):
        return f"//{self.package}:{self.name}"


class Evaluator:
    """Evaluates the expressions of a BUILD or .bzl file that this test needs."""

    def __init__(self, where, env, macros):
        self.where, self.env, self.macros = where, env, macros

    def fail(self, node, what):
        raise BuildError(f"{self.where}:{getattr(node, 'lineno', '?')}: {what}")

    def value(self, node):
        if isinstance(node, ast.Constant) and isinstance(node.value, (str, bool, int)):
            return node.value
        if isinstance(node, ast.List):
            return [self.value(item) for item in node.elts]
        if isinstance(node, ast.Dict):
            return {self.value(k): self.value(v) for k, v in zip(node.keys, node.values)}
        if isinstance(node, ast.Name):
            if node.id not in self.env:
                self.fail(node, f"unknown name '{node.id}'")
            value = self.env[node.id]
            if isinstance(value, Unevaluated):
                self.fail(node, f"'{node.id}' ({value.where}) cannot be evaluated")
            return value
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
            left, right = self.value(node.left), self.value(node.right)
            if type(left) is not type(right) or not isinstance(left, (str, list)):
                self.fail(node, "'+' of other than two strings or two lists")
            return left + right
        self.fail(node, f"cannot evaluate {ast.dump(node)[:80]}")

    def call_name(self, call):
        func = call.func
        if isinstance(func, ast.Name):
            return func.id
        if (isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name)
                and func.value.id == "native"):
            return func.attr
        self.fail(call, "a call of other than a name or native.<rule>")

    def kwargs(self, call, names=None):
        """The keyword arguments of `call` (those in `names` only, when given); with no
        `names`, one that cannot be evaluated is Unevaluated, an error only where used."""
        if call.args:
            self.fail(call, "positional arguments to a rule")
        out = {}
        for keyword in call.keywords:
            if keyword.arg is None:  # **kwargs of a macro
                extra = self.value(keyword.value)
                if not isinstance(extra, dict):
                    self.fail(call, "** of other than a dict")
                for key, value in extra.items():
                    if names is None or key in names:
                        if names is not None and isinstance(value, Unevaluated):
                            self.fail(call, f"'{key}' ({value.where}) cannot be evaluated")
                        out[key] = value
            elif names is None:
                try:
                    out[keyword.arg] = self.value(keyword.value)
                except BuildError as error:
                    out[keyword.arg] = Unevaluated(str(error))
            elif keyword.arg in names:
                out[keyword.arg] = self.value(keyword.value)
        return out

    def keyword_names(self, call):
        """Every keyword `call` passes, those of a ** dict included."""
        names = set()
        for keyword in call.keywords:
            if keyword.arg is not None:
                names.add(keyword.arg)
            else:
                extra = self.value(keyword.value)
                names |= set(extra) if isinstance(extra, dict) else set()
        return names


class Workspace:
    def __init__(self, root):
        self.root = root
        self.targets = {}  # label -> Target
        self.bzl_macros = {}  # .bzl path -> {name: FunctionDef}
        for directory, subdirs, files in os.walk(root):
            subdirs[:] = sorted(d for d in subdirs
                                if not d.startswith((".", "bazel-")) and d != "third_party")
            if "BUILD" in files or "BUILD.bazel" in files:
                name = "BUILD" if "BUILD" in files else "BUILD.bazel"
                self.read_build(os.path.relpath(directory, root).replace(os.sep, "/"), name)

    def path(self, relative):
        return os.path.join(self.root, relative)

    def macros_of(self, bzl_label, package, where):
        if bzl_label.startswith("@"):
            return {}
        if bzl_label.startswith("//"):
            bzl_package, _, name = bzl_label[2:].partition(":")
        elif bzl_label.startswith(":"):
            bzl_package, name = package, bzl_label[1:]
        else:
            raise BuildError(f"{where}: load of '{bzl_label}'")
        relative = f"{bzl_package}/{name}" if bzl_package else name
        if relative not in self.bzl_macros:
            tree = ast.parse(open(self.path(relative)).read(), relative)
            self.bzl_macros[relative] = {
                node.name: (relative, node) for node in tree.body
                if isinstance(node, ast.FunctionDef)}
        return self.bzl_macros[relative]

    def read_build(self, package, build_name):
        where = f"{package}/{build_name}" if package != "." else build_name
        package = "" if package == "." else package
        tree = ast.parse(open(self.path(where)).read(), where)
        env, macros = {}, {}
        evaluator = Evaluator(where, env, macros)
        for statement in tree.body:
            if isinstance(statement, ast.Assign):
                if len(statement.targets) != 1 or not isinstance(statement.targets[0], ast.Name):
                    evaluator.fail(statement, "an assignment of other than one name")
                try:
                    value = evaluator.value(statement.value)
                except BuildError as error:
                    value = Unevaluated(str(error))
                env[statement.targets[0].id] = value
                continue
            if not (isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Call)):
                if isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Constant):
                    continue  # a docstring
                evaluator.fail(statement, "a statement other than a call or an assignment")
            call = statement.value
            rule = evaluator.call_name(call)
            if rule == "load":
                bzl = evaluator.value(call.args[0])
                loaded = self.macros_of(bzl, package, where)
                for arg in call.args[1:]:
                    name = evaluator.value(arg)
                    if name in loaded:
                        macros[name] = loaded[name]
                    else:
                        env[name] = Unevaluated(f"loaded from {bzl}")
                for keyword in call.keywords:
                    env[keyword.arg] = Unevaluated(f"loaded from {bzl}")
                continue
            if rule in macros:
                self.expand_macro(package, where, call, evaluator, *macros[rule])
            else:
                self.add_rule(package, where, rule, call, evaluator)

    def expand_macro(self, package, where, call, evaluator, bzl, definition):
        """Runs a .bzl macro whose body is native.<rule>(...) calls and docstrings only."""
        given = evaluator.kwargs(call)
        params = definition.args
        env = {}
        defaults = [None] * (len(params.args) - len(params.defaults)) + params.defaults
        for param, default in zip(params.args, defaults):
            if param.arg in given:
                env[param.arg] = given.pop(param.arg)
            elif default is not None:
                env[param.arg] = Evaluator(bzl, {}, {}).value(default)
            else:
                evaluator.fail(call, f"macro {definition.name} needs '{param.arg}'")
        if params.kwarg is not None:
            env[params.kwarg.arg] = given
        elif given:
            evaluator.fail(call, f"macro {definition.name} takes no {sorted(given)}")
        inner = Evaluator(f"{bzl} ({where}:{call.lineno})", env, {})
        for statement in definition.body:
            if isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Constant):
                continue
            if not (isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Call)):
                inner.fail(statement, "a macro statement other than a rule call")
            self.add_rule(package, where, inner.call_name(statement.value), statement.value, inner)

    def add_rule(self, package, where, rule, call, evaluator):
        if rule in CC_RULES:
            args = evaluator.kwargs(call, {"name", "srcs", "hdrs", "deps"})
            refused = REFUSED_CC_ATTRIBUTES & evaluator.keyword_names(call)
            if refused:
                evaluator.fail(call, f"{rule} with {sorted(refused)}")
            target = Target(package, args["name"], rule, args.get("srcs", []),
                            args.get("hdrs", []), args.get("deps", []))
        elif rule == "genrule":
            name = evaluator.kwargs(call, {"name"})["name"]
            try:  # an error only if a C++ target names its outputs (files())
                outs = evaluator.kwargs(call, {"outs"})["outs"]
            except BuildError as error:
                outs = Unevaluated(str(error))
            target = Target(package, name, rule, outs=outs)
        elif rule == "alias":
            args = evaluator.kwargs(call, {"name", "actual"})
            target = Target(package, args["name"], rule, actual=args["actual"])
        elif rule in OTHER_RULES:
            return
        else:
            evaluator.fail(call, f"unknown rule or macro '{rule}' (it may make C++ targets)")
        for attribute in (target.srcs, target.hdrs, target.deps):
            if not all(isinstance(item, str) for item in attribute):
                evaluator.fail(call, f"{target.label}: a list of other than strings")
        self.targets[target.label] = target

    def resolve(self, label, package):
        """The Target of `label` written in `package` (aliases followed); None: external."""
        if label.startswith("@"):
            return None
        if label.startswith("//"):
            target_package, _, name = label[2:].partition(":")
            name = name or target_package.rsplit("/", 1)[-1]
        elif label.startswith(":"):
            target_package, name = package, label[1:]
        else:
            target_package, name = package, label
        full = f"//{target_package}:{name}"
        if full not in self.targets:
            raise BuildError(f"//{package}: '{label}' is no C++ target, genrule or alias")
        target = self.targets[full]
        if target.rule == "alias":
            return self.resolve(target.actual, target.package)
        return target

    def files(self, target, attribute):
        """The workspace paths of target.srcs or target.hdrs (genrule outputs included)."""
        out = []
        for item in getattr(target, attribute):
            if item.startswith((":", "//")):
                made = self.resolve(item, target.package)
                if made is None or made.rule != "genrule":
                    raise BuildError(f"{target.label}: {attribute} names {item}, not a genrule")
                if isinstance(made.outs, Unevaluated):
                    raise BuildError(made.outs.where)
                out += [f"{made.package}/{o}" for o in made.outs]
            else:
                out.append(f"{target.package}/{item}" if target.package else item)
        return out

    def visible_headers(self, dep):
        """The headers `dep` lets its dependents include: its hdrs; for a library that is only
        deps (an aggregate such as //core), those of its deps."""
        if dep.rule != "cc_library":
            raise BuildError(f"{dep.label}: a dependency that is a {dep.rule}")
        if dep.srcs or dep.hdrs:
            return set(self.files(dep, "hdrs"))
        headers = set()
        for label in dep.deps:
            inner = self.resolve(label, dep.package)
            if inner is not None:
                headers |= self.visible_headers(inner)
        return headers


def violations(workspace):
    top = {entry for entry in os.listdir(workspace.root)
           if os.path.isdir(workspace.path(entry)) and not entry.startswith((".", "bazel-"))}
    owner = {}  # header -> the labels whose hdrs have it
    for target in workspace.targets.values():
        if target.rule == "cc_library":
            for header in workspace.files(target, "hdrs"):
                owner.setdefault(header, []).append(target.label)
    found = []
    for target in sorted(workspace.targets.values(), key=lambda t: t.label):
        if target.rule not in CC_RULES:
            continue
        own = set(workspace.files(target, "srcs")) | set(workspace.files(target, "hdrs"))
        visible = set(own)
        for label in target.deps:
            dep = workspace.resolve(label, target.package)
            if dep is not None:
                visible |= workspace.visible_headers(dep)
        for source in sorted(own):
            if not os.path.isfile(workspace.path(source)):
                continue  # made by a genrule
            for included in INCLUDE.findall(open(workspace.path(source), errors="replace").read()):
                if included.split("/", 1)[0] not in top or included in visible:
                    continue
                if not os.path.isfile(workspace.path(included)):
                    found.append(f"{target.label}: {source} includes {included}, which is not there")
                elif included in owner:
                    found.append(f"{target.label}: {source} includes {included} of "
                                 f"{' or '.join(owner[included])}, not among its deps")
                else:
                    found.append(f"{target.label}: {source} includes {included}, "
                                 "which no cc_library has in its hdrs")
    return found


def workspace_root():
    if len(sys.argv) > 1:
        return sys.argv[1]
    # This file's runfile is a symlink into the source tree (sh_test data).
    runfiles = os.environ.get("TEST_SRCDIR", "")
    here = os.path.join(runfiles, os.environ.get("TEST_WORKSPACE", ""), "tests",
                        "layering_test.py")
    real = os.path.realpath(here if os.path.exists(here) else __file__)
    return os.path.dirname(os.path.dirname(real))


def main():
    root = workspace_root()
    try:
        workspace = Workspace(root)
        found = violations(workspace)
    except (BuildError, KeyError, OSError, SyntaxError) as error:
        print(f"layering_test: cannot read the BUILD files: {error!r}")
        return 2
    cc_targets = sum(t.rule in CC_RULES for t in workspace.targets.values())
    if cc_targets < 20:
        print(f"layering_test: only {cc_targets} C++ targets under {root}: not the workspace?")
        return 2
    for line in found:
        print(line)
    print(f"layering_test: {cc_targets} C++ targets, {len(found)} includes outside their deps")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
