"""debugger_test: an end-to-end test that runs LLDB and GDB with pyunwind installed."""

def debugger_test(name, deps = [], data = [], size = "large", **kwargs):
    """A cc_test of <name>.cc on the harness, with what the debuggers need at run time.

    Args:
      name: the test; its source is <name>.cc.
      deps: more libraries than the harness and gtest_main.
      data: more run-time files than //:install and the asan preload.
      size: Bazel's test size.
      **kwargs: passed to cc_test (shard_count, ...).
    """
    native.cc_test(
        name = name,
        size = size,
        srcs = [name + ".cc"],
        # The installer and what it installs, and the preload of the asan mode.
        data = ["//:install", ":libasan_first.so"] + data,
        # They depend on what Bazel does not track (the interpreters, LLDB and GDB, the
        # fixtures in ../shared): "external" makes Bazel run them every time, never from cache.
        tags = ["external"],
        deps = [":harness", "@system//:gtest_main"] + deps,
        **kwargs
    )
