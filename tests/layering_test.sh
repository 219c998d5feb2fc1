#!/usr/bin/env bash
# tests/layering_test.py with Debian's python3: no Python toolchain needed.
exec /usr/bin/python3 "$(dirname "$0")/layering_test.py" "$@"
