# pyunwind: loads pyunwind's GDB commands (py-bt, py-tasks, py-list, ...) in every GDB session.
# Installed by the pyunwind package into GDB's system init directory (Debian's GDB reads
# /etc/gdb/gdbinit.d, see `gdb --configuration`); `gdb -nx` skips it for one session.
# After `apt remove pyunwind` this file stays (a conffile) and does nothing; `apt purge`
# removes it.
python
import os
if os.path.exists("/usr/lib/pyunwind/pyunwind-gdb.py"):
    gdb.execute("source /usr/lib/pyunwind/pyunwind-gdb.py")
end
