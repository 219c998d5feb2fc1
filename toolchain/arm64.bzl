"""arm64_files: files built for arm64 (the aarch64 toolchain of toolchain/BUILD) in any build.

A transition on --cpu (Bazel 4.2.3 selects the C++ toolchain from --crosstool_top's
cc_toolchain_suite by --cpu), so that `bazel build //:deb_arm64` and `bazel test //...` build
the arm64 libraries beside the x86-64 ones, without a switch (toolchain/README.md).
"""

def _to_arm64_impl(settings, attr):
    return {"//command_line_option:cpu": "aarch64"}

_to_arm64 = transition(
    implementation = _to_arm64_impl,
    inputs = [],
    outputs = ["//command_line_option:cpu"],
)

def _arm64_files_impl(ctx):
    # Each file under NAME/ (a link to the arm64 build): the arm64 and x86-64 builds of a
    # library have the same runfiles path, and a test that reads both would see one.
    files = []
    for src in ctx.attr.srcs:
        for built in src[DefaultInfo].files.to_list():
            link = ctx.actions.declare_file(ctx.label.name + "/" + built.basename)
            ctx.actions.symlink(output = link, target_file = built)
            files.append(link)
    return [DefaultInfo(files = depset(files), runfiles = ctx.runfiles(files = files))]

arm64_files = rule(
    implementation = _arm64_files_impl,
    doc = "The files of srcs, built with --cpu=aarch64, as NAME/<file name>.",
    attrs = {
        "srcs": attr.label_list(cfg = _to_arm64, mandatory = True),
        "_allowlist_function_transition": attr.label(
            default = "@bazel_tools//tools/allowlists/function_transition_allowlist",
        ),
    },
)
