"""The ctypes mirror of the library's C ABI (gdb_bridge/pyunwind_c_api.h): its functions,
the callbacks it calls and the stop it is told of.

ABI_VERSION is the header's PYUNWIND_ABI_VERSION: change the two and the mirror together
(gdb_bridge/c_api_test checks that they match, that Callbacks has as many fields as the
header's struct, and that every lib.pyunwind_* named here is exported)."""

import ctypes

ABI_VERSION = 11

READ = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p, ctypes.c_uint64, ctypes.c_void_p,
                        ctypes.c_uint64)
SYMBOL = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p, ctypes.c_char_p,
                          ctypes.POINTER(ctypes.c_uint64))
# c_void_p, not c_char_p: a callback cannot hand back a Python-owned
# char*; it returns the address of a buffer the session keeps alive.
TEXT = ctypes.CFUNCTYPE(ctypes.c_void_p, ctypes.c_void_p)
COMMAND_TEXT = ctypes.CFUNCTYPE(ctypes.c_void_p, ctypes.c_void_p, ctypes.c_char_p)
THREAD_TEXT = ctypes.CFUNCTYPE(ctypes.c_void_p, ctypes.c_void_p, ctypes.c_uint64)
WRITE = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_uint64)
FLAG = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p)
THREAD_VALUE = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p, ctypes.c_uint64,
                                ctypes.POINTER(ctypes.c_uint64))


class Callbacks(ctypes.Structure):
    _fields_ = [
        ("ctx", ctypes.c_void_p),
        ("read_memory", READ),
        ("find_symbol", SYMBOL),
        ("debugger_command", COMMAND_TEXT),
        ("thread_ids", TEXT),
        ("native_frames", THREAD_TEXT),
        ("debugger_version", TEXT),
        ("thread_name", THREAD_TEXT),
        ("write_output", WRITE),
        ("live_pid", ctypes.c_uint64),
        ("interrupted", FLAG),
        ("stack_pointer", THREAD_VALUE),
    ]


class Stop(ctypes.Structure):
    _fields_ = [
        ("state", ctypes.c_int32),
        ("process", ctypes.c_uint64),
        ("instance", ctypes.c_uint64),
        ("stop_id", ctypes.c_uint64),
        ("selected_thread_id", ctypes.c_int64),
        ("selected_native_frame", ctypes.c_int64),
    ]


# enum pyunwind_process_state
STOPPED, NO_PROCESS, RUNNING = 0, 1, 2


class LoadError(Exception):
    """The library cannot be used; its text is the one line to print."""


def load(path):
    """The library at `path` with its functions typed. Raises LoadError when it cannot be
    loaded, is not pyunwind's, or has another ABI version."""
    try:
        lib = ctypes.CDLL(path)
        lib.pyunwind_abi_version.restype = ctypes.c_int
    except (OSError, AttributeError) as e:  # AttributeError: a library that is not pyunwind's
        raise LoadError("pyunwind: cannot load %s: %s" % (path, e)) from None
    lib.pyunwind_abi_version.argtypes = []
    version = lib.pyunwind_abi_version()
    if version != ABI_VERSION:
        raise LoadError("pyunwind: %s has ABI version %d, this script wants %d"
                        % (path, version, ABI_VERSION))

    lib.pyunwind_commands.restype = ctypes.c_char_p
    lib.pyunwind_commands.argtypes = []
    # The strings the library returns are malloc'd: c_void_p, freed by pyunwind_free.
    lib.pyunwind_run_command_at.restype = ctypes.c_void_p
    lib.pyunwind_run_command_at.argtypes = [ctypes.POINTER(Callbacks), ctypes.c_char_p,
                                            ctypes.c_char_p, ctypes.POINTER(Stop), ctypes.c_int,
                                            ctypes.POINTER(ctypes.c_int64),
                                            ctypes.POINTER(ctypes.c_int)]
    lib.pyunwind_python_frames_by_native_frame_at.restype = ctypes.c_void_p
    lib.pyunwind_python_frames_by_native_frame_at.argtypes = [
        ctypes.POINTER(Callbacks), ctypes.POINTER(Stop), ctypes.POINTER(ctypes.c_int)]
    lib.pyunwind_free.restype = None
    lib.pyunwind_free.argtypes = [ctypes.c_void_p]
    lib.pyunwind_prepare.restype = None
    lib.pyunwind_prepare.argtypes = []
    lib.pyunwind_python_in_module_files.restype = ctypes.c_int
    lib.pyunwind_python_in_module_files.argtypes = [ctypes.POINTER(ctypes.c_char_p),
                                                    ctypes.c_size_t]
    return lib
