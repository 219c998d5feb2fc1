"""debugger_test: an end-to-end test that runs LLDB and GDB with pyunwind installed."""

# The tag of the debugger tests the ASan phase of .ci/run leaves out
# (`--test_tag_filters=-no_asan_ci`): every test runs in its plain phase, and under ASan the
# unit tests and the end-to-end tests that are in_asan_ci.
NO_ASAN_CI = "no_asan_ci"

def debugger_test(name, deps = [], data = [], size = "large", in_asan_ci = False, **kwargs):
    """A cc_test of <name>.cc on the harness, with what the debuggers need at run time.

    Args:
      name: the test; its source is <name>.cc.
      deps: more libraries than the harness and gtest_main.
      data: more run-time files than //:install and the asan preload.
      size: Bazel's test size.
      in_asan_ci: whether .ci/run runs it under ASan too: true for the subset that runs each
        front-end path (LLDB plugin, GDB bridge, live and core, every command) at least once.
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
        tags = ["external"] + ([] if in_asan_ci else [NO_ASAN_CI]),
        deps = [":harness", "@system//:gtest_main"] + deps,
        **kwargs
    )
