// Layouts of the CPython versions that predate _Py_DebugOffsets. Offsets are
// those of the x86-64 release builds (checked against the debug info of
// Debian's 3.11.2 and upstream 3.12.6: ../shared/fixtures/layouts/).
#include <fmt/format.h>

#include "core/layout/layout.h"

namespace pyunwind {
namespace {

// Fields that 3.11 and 3.12 share.
Layout CommonLayout() {
  Layout l;
  l.runtime.interpreters_head = 40;
  l.runtime.interpreters_main = 48;

  l.tstate.prev = 0;
  l.tstate.next = 8;
  l.tstate.interp = 16;
  l.tstate.cframe = 56;

  l.frame.instr_is_previous = true;
  l.frame.owner_generator = 1;

  l.code.filename = 112;
  l.code.name = 120;
  l.code.qualname = 128;
  l.code.linetable = 136;
  l.code.localsplusnames = 96;
  l.code.localspluskinds = 104;

  l.object.ob_type = 8;
  l.object.ob_size = 16;
  l.type.tp_name = 24;
  l.type.tp_flags = 168;
  l.type.tp_basicsize = 32;
  l.type.tp_dictoffset = 288;

  l.unicode.length = 16;
  l.unicode.state = 32;
  l.unicode.kind_shift = 2;
  l.unicode.compact_bit = 5;
  l.unicode.ascii_bit = 6;

  l.bytes.ob_size = 16;
  l.bytes.ob_sval = 32;
  l.tuple.ob_size = 16;
  l.tuple.ob_item = 24;
  l.list.ob_size = 16;
  l.list.ob_item = 24;
  l.dict.ma_used = 16;
  l.dict.ma_keys = 32;
  l.dict.ma_values = 40;
  l.float_object.ob_fval = 16;

  l.gil.last_holder = 8;
  l.gil.locked = 16;
  l.err_stackitem.exc_value = 0;
  l.err_stackitem.previous_item = 8;
  return l;
}

Layout Python311() {
  Layout l = CommonLayout();
  l.source = "table 3.11";
  l.runtime.main_thread = 80;
  l.runtime.gil = 360;
  l.runtime.main_interpreter_embedded = 58936;

  l.interp.size = 107752;
  l.interp.next = 0;
  l.interp.threads_head = 16;
  l.interp.runtime = 40;
  l.interp.id = 48;
  l.interp.gc_collecting = 848;
  l.interp.modules = 888;
  l.interp.sysdict = 904;
  l.interp.builtins = 912;

  l.tstate.size = 360;
  l.tstate.thread_id = 152;
  l.tstate.native_thread_id = 160;
  l.tstate.cframe_current_frame = 8;  // after `uint8_t use_tracing`
  l.tstate.current_exception = 96;  // curexc_type
  l.tstate.exc_info = 120;
  l.tstate.exc_state = 320;

  l.frame.size = 80;
  l.frame.executable = 32;
  l.frame.previous = 48;
  l.frame.instr_ptr = 56;
  l.frame.stacktop = 64;
  l.frame.is_entry = 68;
  l.frame.owner = 69;
  l.frame.localsplus = 72;
  // 3.11 marks C-stack entry frames with is_entry, not an owner: every frame is Python code.
  l.frame.owner_first_internal = 3;

  l.code.size = 192;
  l.code.argcount = 56;
  l.code.firstlineno = 72;
  l.code.firsttraceable = 168;
  l.code.code_adaptive = 184;

  l.unicode.ascii_data = 48;    // PyASCIIObject still has wstr
  l.unicode.compact_data = 72;

  l.long_object.ob_size = 16;
  l.long_object.ob_digit = 24;
  l.type.ht_cached_keys = 872;
  return l;
}

Layout Python312() {
  Layout l = CommonLayout();
  l.source = "table 3.12";
  l.runtime.main_thread = 64;
  l.runtime.main_interpreter_embedded = 76440;

  l.interp.size = 383552;
  l.interp.next = 0;
  l.interp.id = 8;
  l.interp.threads_head = 72;
  l.interp.runtime = 96;
  l.interp.gc_collecting = 312;
  l.interp.sysdict = 352;
  l.interp.builtins = 360;
  l.interp.ceval_gil = 384;
  l.interp.modules = 944;

  l.tstate.size = 288;
  l.tstate.thread_id = 136;
  l.tstate.native_thread_id = 144;
  l.tstate.cframe_current_frame = 0;
  l.tstate.current_exception = 96;
  l.tstate.exc_info = 104;
  l.tstate.exc_state = 256;

  l.frame.size = 80;
  l.frame.executable = 0;
  l.frame.previous = 8;
  l.frame.instr_ptr = 56;
  l.frame.stacktop = 64;
  l.frame.owner = 70;
  l.frame.localsplus = 72;
  l.frame.owner_first_internal = 3;  // FRAME_OWNED_BY_CSTACK

  l.code.size = 200;
  l.code.argcount = 52;
  l.code.firstlineno = 68;
  l.code.firsttraceable = 176;
  l.code.code_adaptive = 192;

  l.unicode.ascii_data = 40;
  l.unicode.compact_data = 56;

  l.long_object.lv_tag = 16;
  l.long_object.ob_digit = 24;
  l.type.ht_cached_keys = 880;
  return l;
}

}  // namespace

Result<Layout> LayoutFromTable(uint32_t hexversion, bool free_threaded) {
  PythonVersion version{hexversion};
  if (free_threaded) {
    return MakeError(fmt::format("Python {} has no free-threaded build", version.ToString()));
  }
  Layout layout;
  if (version.major() == 3 && version.minor() == 11) {
    layout = Python311();
  } else if (version.major() == 3 && version.minor() == 12) {
    layout = Python312();
  } else {
    return MakeError(fmt::format("no layout table for Python {}", version.ToString()));
  }
  layout.version = version;
  return layout;
}

}  // namespace pyunwind
