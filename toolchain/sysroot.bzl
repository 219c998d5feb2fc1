"""Where .ci/fetch-sysroot unpacks Debian 11's C library, the one place each is written.

toolchain/BUILD passes them as --sysroot (./gcc reads it from there), the .deb's genrules to
dpkg-shlibdeps (packaging/build_package.sh), and .ci/fetch-sysroot reads the lines below
(`.ci/fetch-sysroot` the first, `.ci/fetch-sysroot arm64` the second).
"""

SYSROOT = "/var/cache/pyunwind-sysroot/bullseye"

SYSROOT_ARM64 = "/var/cache/pyunwind-sysroot/bullseye-arm64"
