// glibc 2.35's struct dl_find_object as x86-64 and aarch64 lay it out (no dlfo_eh_dbase, no
// dlfo_eh_count, which only i386/nios2 and arm32 have),
// for code compiled against an older C library's headers (the glibc 2.31 sysroot:
// toolchain/README.md) that calls _dl_find_object where the running glibc has it.
#ifndef PYUNWIND_TOOLCHAIN_DL_FIND_OBJECT_H_
#define PYUNWIND_TOOLCHAIN_DL_FIND_OBJECT_H_

struct link_map;

struct PyunwindDlFindObject {
  unsigned long long dlfo_flags;
  void* dlfo_map_start;
  void* dlfo_map_end;
  struct link_map* dlfo_link_map;
  void* dlfo_eh_frame;
  unsigned long long reserved[7];
};

#endif  // PYUNWIND_TOOLCHAIN_DL_FIND_OBJECT_H_
