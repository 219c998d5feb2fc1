"""fixture_core_test: a core-level test over the fixture cores of ../shared/fixtures."""

def fixture_core_test(name, deps = [], data = [], **kwargs):
    """A cc_test of <name>.cc that reads fixture cores through //core:elf_core_target.

    The test's own source is also a data dependency: resolving its runfile symlink finds the
    workspace root, and ../shared beside it (tests/fixture_cores.h, SharedFixtures).

    Args:
      name: the test; its source is <name>.cc.
      deps: more than the core, the fixture helpers, GoogleTest and JSON.
      data: more files the test reads, beside its own source.
      **kwargs: passed to cc_test.
    """
    native.cc_test(
        name = name,
        size = "large",
        srcs = [name + ".cc"],
        data = [name + ".cc"] + data,
        deps = [
            ":fixture_facts",
            ":opened_core",
            "//core",
            "//core:elf_core_target",
            "@system//:gtest_main",
            "@system//:json",
        ] + deps,
        **kwargs
    )
