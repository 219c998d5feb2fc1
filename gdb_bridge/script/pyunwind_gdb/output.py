"""The library's text, printed by GDB: a command's output comes in pieces (its write_output
callback, then the string it returns), each decoded as UTF-8 where a character may be cut
between two pieces."""

import codecs
import ctypes

import gdb

_libc = ctypes.CDLL(None)
_libc.strlen.restype = ctypes.c_size_t
_libc.strlen.argtypes = [ctypes.c_void_p]

# gdb.write takes 64 KiB at a time: each piece is copied four times on its way
# out (bytes, str, GDB's string, its printf), and a 1 MiB piece is both fresh
# memory each time and 16 times a pipe's buffer. py-bt --all on 3,069 frames
# (443 KB) to a pipe: 1 MiB pieces 2.8 ms, 64 KiB 1.3-1.6 ms (bench/README.md).
WRITE_CHUNK = 1 << 16


def new_decoder():
    """UTF-8 decoding of output that comes in pieces: decoding them one after the
    other gives what one decode of the whole gives (a character cut between two
    pieces included)."""
    return codecs.getincrementaldecoder("utf-8")("replace")


def write_pieces(text, size, decoder, final):
    """gdb.write of `size` bytes at address `text`, WRITE_CHUNK at a time: a large
    output (py-tasks --tree on 100,000 tasks) is never one Python bytes, one str and
    one GDB copy at once. `final`: the decoder gives back what it holds (the end of
    a character cut between two pieces)."""
    start = 0
    while True:  # once at least: the decoder may hold the end of a piece before
        n = min(WRITE_CHUNK, size - start)
        last = start + n >= size
        gdb.write(decoder.decode(ctypes.string_at(text + start, n), final and last))
        if last:
            break
        start += n


def take_text(lib, result):
    """A string the library returned, as str; frees it."""
    if not result:
        raise gdb.GdbError("pyunwind: out of memory")
    try:
        return ctypes.string_at(result).decode("utf-8", "replace")
    finally:
        lib.pyunwind_free(result)


def write_text(lib, result, decoder):
    """Writes a string the library returned (write_pieces), then frees it."""
    if not result:
        raise gdb.GdbError("pyunwind: out of memory")
    try:
        write_pieces(result, _libc.strlen(result), decoder, True)
    finally:
        lib.pyunwind_free(result)
