#!/usr/bin/env bash
# The plugin binary serves every LLDB 14..22 (docs/support.md): it must not depend on any liblldb
# soname, and its lldb::SB* calls must be undefined, unversioned symbols (bound to whichever
# liblldb the loading LLDB has), bound lazily (no BIND_NOW: sb_api.cc checks them first).
set -uo pipefail
plugin=$1
fail=0
needed=$(objdump -p "$plugin" | awk '$1 == "NEEDED" {print $2}')
if grep -qi lldb <<<"$needed"; then
  echo "FAIL: $plugin has a DT_NEEDED on liblldb: $(grep -i lldb <<<"$needed")"; fail=1
fi
sb=$(nm -D --undefined-only "$plugin" | awk '$2 ~ /^_ZN(K)?4lldb/ {print $2}')
count=$(grep -c . <<<"$sb")
if ((count < 20)); then
  echo "FAIL: only $count undefined lldb::SB* symbols in $plugin (expected the SB API calls)"; fail=1
fi
if grep -q '@' <<<"$sb"; then
  echo "FAIL: versioned SB symbol references (linked against one liblldb): $(grep -m3 '@' <<<"$sb")"; fail=1
fi
if objdump -p "$plugin" | grep -qE '^\s*FLAGS.*BIND_NOW|FLAGS_1.*NOW'; then
  echo "FAIL: $plugin is linked with -z now (sb_api.cc's check needs lazy binding)"; fail=1
fi
exported=$(nm -D --defined-only "$plugin" | awk '{print $3}' | sort | tr '\n' ' ')
if [[ $exported != "_ZN4lldb16PluginInitializeENS_10SBDebuggerE pyunwind_python_in_module_files " ]]; then
  echo "FAIL: exports other than lldb::PluginInitialize and pyunwind_python_in_module_files: $exported"
  fail=1
fi
((fail)) || echo "ok: no liblldb NEEDED, $count undefined unversioned lldb::SB* symbols, lazy binding, two exports"
exit $fail
