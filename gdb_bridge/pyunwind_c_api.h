/* pyunwind's plain C ABI, for front-ends that load it with a foreign-function
 * interface (GDB's embedded Python, through ctypes). No dependency on
 * libpython: one build works with any GDB, whatever Python it embeds.
 *
 * Memory ownership:
 *   - Strings returned by pyunwind_* functions are either static
 *     (pyunwind_commands, pyunwind_abi_version) or malloc'd and released with
 *     pyunwind_free (pyunwind_run_command).
 *   - Strings returned by the callbacks belong to the caller of
 *     pyunwind_run_command; the library copies them at once, so they need to
 *     stay valid only until the callback returns to the library (e.g. a
 *     buffer the script keeps until its next callback).
 *
 * Threading: pyunwind_run_command is reentrant; the callbacks are called on
 * the calling thread only, before pyunwind_run_command returns. (ABI 9) A
 * command given a live_pid and write_output runs on a thread of the library
 * while the calling thread waits in pyunwind_run_command and runs there each
 * callback the command makes, and prints its output as it comes: the
 * library reads and formats on while the host prints (write_output returns
 * at once to the command; the piece is copied). That thread blocks every
 * signal.
 */
#ifndef PYUNWIND_C_API_H_
#define PYUNWIND_C_API_H_

#include <stddef.h>
#include <stdint.h>

#if defined(__GNUC__)
#define PYUNWIND_API __attribute__((visibility("default")))
#else
#define PYUNWIND_API
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* Bumped when the layout of pyunwind_callbacks or a signature changes. */
#define PYUNWIND_ABI_VERSION 11

struct pyunwind_callbacks {
  /* Passed back unchanged as the first argument of every callback. */
  void* ctx;

  /* Copies `size` bytes at `addr` into `buf`. Returns 1 when every byte was
   * read, 0 otherwise (`buf` may then be partly written). Required. */
  int (*read_memory)(void* ctx, uint64_t addr, void* buf, uint64_t size);

  /* Address of a global symbol (e.g. "_PyRuntime"). Returns 1 and writes
   * `*addr_out` when found, 0 when not (silently). May be NULL. */
  int (*find_symbol)(void* ctx, const char* name, uint64_t* addr_out);

  /* (ABI 3) The output of one of the debugger's CLI commands: GDB's
   * "info proc mappings" and "maint info sections", from which the library
   * lists the memory regions and the mapped files (and reads each file's load
   * bias from its ELF headers in memory). NULL when the command fails. May be
   * NULL. */
  const char* (*debugger_command)(void* ctx, const char* command);

  /* OS thread ids (LWPs) in the debugger's order, decimal, separated by
   * white space. NULL or "" when unknown. May be NULL. */
  const char* (*thread_ids)(void* ctx);

  /* (ABI 2) The debugger's backtrace of the thread with OS thread id
   * `thread_id`, innermost first, one frame per line, line i being the
   * debugger's frame number i: "PC\tFUNCTION\tMODULE", PC in hex, FUNCTION
   * and MODULE (object file path) empty where unknown. NULL or "" when the
   * host cannot unwind. May be NULL. */
  const char* (*native_frames)(void* ctx, uint64_t thread_id);

  /* (ABI 4) The debugger's name and version, e.g. "GDB 13.1", for
   * `pyunwind version`. NULL or "" when unknown. May be NULL. */
  const char* (*debugger_version)(void* ctx);

  /* (ABI 4) The debugger's name of the thread with OS thread id `thread_id`
   * (GDB: InferiorThread.name; /proc/PID/task/TID/comm for a live process),
   * UTF-8. NULL or "" when it has none. May be NULL. */
  const char* (*thread_name)(void* ctx, uint64_t thread_id);

  /* (ABI 5) Prints `size` bytes of a command's output (UTF-8, a piece of it,
   * not ending at a character boundary necessarily) while the command runs:
   * large outputs (py-tasks --json) come this way in pieces of about 1 MiB,
   * and the string the command returns is the rest, printed after them. May
   * be NULL: then all of it is returned. */
  void (*write_output)(void* ctx, const char* text, uint64_t size);

  /* (ABI 6) The process ID of a live process on this host that the debugger
   * debugs directly (GDB's "native" target), or 0. The library then reads
   * its memory from /proc/PID/mem itself, a system call a read instead of a
   * callback, and through read_memory only what that cannot read. 0 wherever
   * the PID may name another process here (a core, a remote target). */
  uint64_t live_pid;

  /* (ABI 9) 1 once the user stopped the command (Ctrl-C), else 0. Asked every
   * few thousand steps while a command runs, including where no other callback
   * would be (the reads of live_pid's memory); the command then fails with
   * "pyunwind: interrupted" and keeps nothing it read at the stop. Asked
   * also after every other callback a command makes: when it says 1, that
   * callback's answer is not used (a host stopped in the middle of a callback
   * may return anything). Where the command runs on the library's thread,
   * the calling thread asks, after each callback and piece of output and
   * every 10 ms while it waits. May be NULL. */
  int (*interrupted)(void* ctx);

  /* (ABI 11) The stack pointer of the innermost frame of the thread with OS
   * thread id `thread_id` (GDB: its newest frame's read_register("sp")): the
   * memory region holding it is the thread's C stack. Returns 1 and writes
   * `*sp_out` when known, 0 otherwise. May be NULL. */
  int (*stack_pointer)(void* ctx, uint64_t thread_id, uint64_t* sp_out);
};

/* PYUNWIND_ABI_VERSION of the library. */
PYUNWIND_API int pyunwind_abi_version(void);

/* (ABI 7) Sets up, on a thread of its own, what the first command would
 * otherwise wait for (the page cache's memory, faulted in; (ABI 9) the
 * thread commands run on, with its heap and stack faulted in). Optional;
 * the script calls it once, when it has loaded the library. */
PYUNWIND_API void pyunwind_prepare(void);

/* Every command to register, as a static JSON array of
 * {"name": ..., "summary": ..., "help": ...}. Never NULL. */
PYUNWIND_API const char* pyunwind_commands(void);

/* Runs `command_name` (e.g. "py-bt") with `argument_line` (the rest of the
 * command line, split like a shell would). `selected_thread_id` is the LWP
 * of the debugger's selected thread, or -1 when none. `is_terminal` is
 * non-zero when the output goes to a terminal (colour allowed).
 *
 * Returns a malloc'd UTF-8 string to print (ending with a newline), to be
 * released with pyunwind_free; NULL only when out of memory. `*failed` (if
 * `failed` is not NULL) is set to 1 when the string is one error line, 0
 * otherwise. No C++ exception crosses this boundary. */
PYUNWIND_API char* pyunwind_run_command(const struct pyunwind_callbacks* callbacks,
                                        const char* command_name,
                                        const char* argument_line,
                                        int64_t selected_thread_id, int is_terminal,
                                        int* failed);

/* (ABI 3) What the front-end knows of the process a command runs on. */
enum pyunwind_process_state {
  PYUNWIND_STOPPED = 0,     /* readable: a stopped process or a core file */
  PYUNWIND_NO_PROCESS = 1,  /* nothing to read */
  PYUNWIND_RUNNING = 2      /* a thread runs: its memory changes under the reads */
};
struct pyunwind_stop {
  int32_t state;               /* enum pyunwind_process_state */
  uint64_t process;            /* the OS process id, 0 if none */
  uint64_t instance;           /* the debugger's id of the process object */
  uint64_t stop_id;            /* changes whenever the process resumes */
  int64_t selected_thread_id;  /* LWP of the selected thread, -1 if none */
  /* (ABI 10) the debugger's selected frame in that thread (0 = innermost), where
   * py-up / py-down start unless one of them selected a Python frame since; -1:
   * unknown, Python frame 0 is taken to be selected */
  int64_t selected_native_frame;
};

/* (ABI 3) pyunwind_run_command as a debugger runs it: refuses (one error line,
 * the same in every debugger) unless `stop->state` is PYUNWIND_STOPPED (or
 * the command reads no process, e.g. "version"), and keeps the Python frame
 * py-up / py-down / py-frame select, per process and thread, until
 * `stop->stop_id` changes (the library keeps it). (ABI 4) What a command read
 * at a stop (the runtime, layout, memory pages, code objects, the walk, the
 * native frames) is kept for the next command of the same stop: the
 * front-end changes `stop_id` whenever the process resumes or its memory may
 * have changed, and `instance` for another target. `native_frame`
 * (may be NULL) is out: the debugger's frame number of the eval-loop frame
 * running the newly selected Python frame, for the front-end to select; -1:
 * none. What is kept is the process's (core/session/kept_state.h): calls
 * from several threads run one at a time; a call from a callback of a call
 * still running fails with one line. */
PYUNWIND_API char* pyunwind_run_command_at(const struct pyunwind_callbacks* callbacks,
                                           const char* command_name,
                                           const char* argument_line,
                                           const struct pyunwind_stop* stop, int is_terminal,
                                           int64_t* native_frame, int* failed);

/* (ABI 3) For the debugger's own backtrace: each eval-loop frame of the
 * selected thread with the Python frames it runs, as a malloc'd JSON object
 * {"<debugger frame number>": "qualname at file.py:line, ...", ...} ("{}"
 * when there are none or the stack cannot be read); NULL only when out of
 * memory. Release it with pyunwind_free. */
PYUNWIND_API char* pyunwind_python_frames_by_native_frame(
    const struct pyunwind_callbacks* callbacks, int64_t selected_thread_id);

/* (ABI 4) pyunwind_python_frames_by_native_frame at `stop` (the thread is
 * stop->selected_thread_id), reading through what the commands of that stop
 * kept. `*has_python` (if not NULL): 1 when the target has a Python runtime,
 * 0 when it has none (not a Python process), -1 when that is unknown (not
 * stopped, or another failure). */
PYUNWIND_API char* pyunwind_python_frames_by_native_frame_at(
    const struct pyunwind_callbacks* callbacks, const struct pyunwind_stop* stop,
    int* has_python);

/* (ABI 8) Whether a process runs Python, from the files of its modules alone
 * (`count` paths: its executable and shared libraries): 1 when a file is a
 * libpython or pythonX.Y or an ELF string table of one names _PyRuntime, 0 when
 * every file was read and none does, -1 when one cannot be read (the library's
 * search of memory decides). Reads no memory of the process; a path that is a
 * FIFO or a terminal is not opened as one. */
PYUNWIND_API int pyunwind_python_in_module_files(const char* const* paths, size_t count);

/* Releases a string returned by pyunwind_run_command. NULL is fine. */
PYUNWIND_API void pyunwind_free(char* text);

#ifdef __cplusplus
}  /* extern "C" */
#endif

#endif  /* PYUNWIND_C_API_H_ */
