"""pyunwind's release version: the .deb's Version and the tarball's name."""

PYUNWIND_VERSION = "0.1.0"
