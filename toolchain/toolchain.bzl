"""pyunwind's cc_toolchain for one target architecture: GCC 12 against a Debian 11 sysroot.

Bazel 4.2.3's own unix toolchain (what its autoconfiguration writes for this machine), with the
sysroot: --sysroot (builtin_sysroot) for every compile and link, the sysroot's crt files (-B)
and libraries (-L) ahead of the compiler's own, which GCC otherwise searches first
(toolchain/README.md). toolchain/BUILD declares the two: k8 (Debian 12's native GCC) and
aarch64 (Debian's cross compiler g++-aarch64-linux-gnu).
"""

load("@bazel_tools//tools/cpp:unix_cc_toolchain_config.bzl", "cc_toolchain_config")
load("@rules_cc//cc:defs.bzl", "cc_toolchain")

def pyunwind_cc_toolchain(
        name,
        identifier,
        cpu,
        triplet,
        sysroot,
        compiler_files,
        driver,
        tool_prefix,
        builtin_include_directories,
        extra_compile_flags = [],
        extra_cxx_flags = [],
        extra_link_flags = []):
    """cc_toolchain NAME (and NAME_config) for CPU.

    Args:
      name: the cc_toolchain, keyed by CPU in toolchain/BUILD's cc_toolchain_suite.
      identifier: its toolchain_identifier.
      cpu: Bazel's --cpu value (k8, aarch64).
      triplet: the Debian multiarch triplet, where the sysroot keeps its libraries.
      sysroot: the sysroot .ci/fetch-sysroot unpacks (toolchain/sysroot.bzl).
      compiler_files: the files the driver needs (a filegroup of this package).
      driver: the compiler and linker driver script of this package (./gcc or a link to it).
      tool_prefix: binutils of the architecture (/usr/bin/ or /usr/bin/aarch64-linux-gnu-).
      builtin_include_directories: the compiler's own header directories (C++ library, GCC's).
      extra_compile_flags: flags of every compile.
      extra_cxx_flags: flags of every C++ compile.
      extra_link_flags: flags of every link, after the sysroot's.
    """
    cc_toolchain(
        name = name,
        all_files = compiler_files,
        ar_files = ":empty",
        as_files = compiler_files,
        compiler_files = compiler_files,
        dwp_files = ":empty",
        linker_files = compiler_files,
        objcopy_files = ":empty",
        strip_files = ":empty",
        supports_param_files = 1,
        toolchain_config = ":%s_config" % name,
        toolchain_identifier = identifier,
    )
    cc_toolchain_config(
        name = name + "_config",
        abi_libc_version = "glibc_2.31",
        abi_version = "gcc",
        builtin_sysroot = sysroot,
        compile_flags = [
            "-U_FORTIFY_SOURCE",
            "-fstack-protector",
            "-Wall",
            "-Wunused-but-set-parameter",
            "-Wno-free-nonheap-object",
            "-fno-omit-frame-pointer",
        ] + extra_compile_flags,
        compiler = "gcc",
        coverage_compile_flags = ["--coverage"],
        coverage_link_flags = ["--coverage"],
        cpu = cpu,
        cxx_builtin_include_directories = builtin_include_directories + [
            "%sysroot%/usr/include/" + triplet,
            "%sysroot%/usr/include",
        ],
        cxx_flags = ["-std=c++0x"] + extra_cxx_flags,
        dbg_compile_flags = ["-g"],
        host_system_name = "local",
        link_flags = [
            "-B" + sysroot + "/usr/lib/%s/" % triplet,
            "-L" + sysroot + "/usr/lib/" + triplet,
            "-L" + sysroot + "/lib/" + triplet,
            "-fuse-ld=gold",
            "-Wl,-no-as-needed",
            "-Wl,-z,relro,-z,now",
        ] + extra_link_flags + [
            "-pass-exit-codes",
            # Test programs link this machine's libgtest and libstdc++.so, which need a newer
            # glibc than the sysroot's: they run here, on this machine's glibc. The shipped
            # libraries link no such library (//toolchain:static_cxx_runtime;
            # packaging/shipped_files_test.sh).
            "-Wl,--allow-shlib-undefined",
        ],
        # libstdc++ comes from the g++ driver (./gcc links with g++).
        link_libs = ["-lm"],
        opt_compile_flags = [
            "-g0",
            "-O2",
            "-D_FORTIFY_SOURCE=1",
            "-DNDEBUG",
            "-ffunction-sections",
            "-fdata-sections",
        ],
        opt_link_flags = ["-Wl,--gc-sections"],
        supports_start_end_lib = True,
        target_libc = "glibc_2.31",
        target_system_name = triplet,
        tool_paths = {
            "ar": tool_prefix + "ar",
            "ld": tool_prefix + "ld",
            "llvm-cov": "/usr/bin/llvm-cov",
            "cpp": tool_prefix + "cpp",
            "gcc": driver,
            "dwp": tool_prefix + "dwp",
            "gcov": tool_prefix + "gcov",
            "nm": tool_prefix + "nm",
            "objcopy": tool_prefix + "objcopy",
            "objdump": tool_prefix + "objdump",
            "strip": tool_prefix + "strip",
        },
        toolchain_identifier = identifier,
        unfiltered_compile_flags = [
            "-fno-canonical-system-headers",
            "-Wno-builtin-macro-redefined",
            "-D__DATE__=\"redacted\"",
            "-D__TIMESTAMP__=\"redacted\"",
            "-D__TIME__=\"redacted\"",
        ],
    )
