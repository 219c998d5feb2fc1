"""The Debian package and the release tarball of one architecture (root BUILD: amd64, arm64)."""

load(":version.bzl", "PYUNWIND_VERSION")

def _files(lldb_so, gdb_so):
    """What both ship: the two libraries and the Python files of GDB and LLDB."""
    return [
        lldb_so,
        gdb_so,
        "//gdb_bridge:pyunwind-gdb.py",
        "//gdb_bridge:pyunwind_gdb",
        "//lldb_plugin:pyunwind_lldb_frames.py",
    ]

def _inputs(lldb_so, gdb_so):
    """The first arguments of build_package.sh after VERSION."""
    return " ".join([
        "$(location %s)" % lldb_so,
        "$(location %s)" % gdb_so,
        "$(location //gdb_bridge:pyunwind-gdb.py)",
        "$(location //lldb_plugin:pyunwind_lldb_frames.py)",
    ])

def pyunwind_packages(name_suffix, arch, lldb_so, gdb_so, sysroot):
    """deb<name_suffix> and tarball<name_suffix>, built by packaging/build_package.sh.

    Args:
      name_suffix: "" (amd64: //:deb, //:tarball) or "_arm64".
      arch: Debian's architecture name: amd64 or arm64.
      lldb_so: the LLDB plugin built for arch.
      gdb_so: the GDB bridge library built for arch.
      sysroot: the sysroot both were linked against (toolchain/sysroot.bzl), whose libc6
        symbols file gives the package's Depends (dpkg-shlibdeps).
    """
    native.genrule(
        name = "deb" + name_suffix,
        srcs = _files(lldb_so, gdb_so) + [
            "//packaging:gdbinit.gdb",
            "//packaging:README.Debian",
        ],
        outs = ["pyunwind_%s_%s.deb" % (PYUNWIND_VERSION, arch)],
        cmd = " ".join([
            "PYUNWIND_ARCH=" + arch,
            "PYUNWIND_SYSROOT=" + sysroot,
            "$(location //packaging:build_package.sh) deb $@",
            PYUNWIND_VERSION,
            _inputs(lldb_so, gdb_so),
            "$(location //packaging:gdbinit.gdb)",
            "$(location //packaging:README.Debian)",
            "$(locations //gdb_bridge:pyunwind_gdb)",
        ]),
        tools = ["//packaging:build_package.sh"],
        visibility = ["//visibility:public"],
    )
    native.genrule(
        name = "tarball" + name_suffix,
        srcs = _files(lldb_so, gdb_so) + ["//packaging:install.sh"],
        outs = ["pyunwind-%s-linux-%s.tar.gz" % (PYUNWIND_VERSION, arch)],
        cmd = " ".join([
            "$(location //packaging:build_package.sh) tarball $@",
            PYUNWIND_VERSION,
            _inputs(lldb_so, gdb_so),
            "$(location //packaging:install.sh)",
            "$(locations //gdb_bridge:pyunwind_gdb)",
        ]),
        tools = ["//packaging:build_package.sh"],
        visibility = ["//visibility:public"],
    )
