"""Where .ci/fetch-sysroot unpacks Debian 11's C library, the one place it is written.

toolchain/BUILD passes it as --sysroot (./gcc reads it from there), the .deb's genrule to
dpkg-shlibdeps (packaging/build_package.sh), and .ci/fetch-sysroot reads the line below.
"""

SYSROOT = "/var/cache/pyunwind-sysroot/bullseye"
