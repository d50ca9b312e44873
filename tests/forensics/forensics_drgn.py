#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""drgn check of a hibimg ELF export with the kernel's debug info (issue 7).

Usage: forensics_drgn.py CORE.elf VMLINUX [MARKER_COMM]

Prints key=value lines: the release read through the debug info
(init_uts_ns.name.release), the number of tasks found by
drgn.helpers.linux.pid.for_each_task, and one `task=PID COMM STATE` line per
task whose comm is MARKER_COMM (default hibmarker). Exits 1 if no such task.
"""
import sys

import drgn
from drgn.helpers.linux.pid import for_each_task


def main():
    core, vmlinux = sys.argv[1], sys.argv[2]
    marker = sys.argv[3] if len(sys.argv) > 3 else "hibmarker"
    prog = drgn.Program()
    prog.set_core_dump(core)
    try:
        prog.load_debug_info([vmlinux])
    except drgn.MissingDebugInfoError as e:
        # modules' debug info is not loaded on purpose: only vmlinux is extracted
        print("note=%s" % str(e).splitlines()[0])
    print("drgn_version=%s" % drgn.__version__)
    print("release=%s" % prog["init_uts_ns"].name.release.string_().decode())
    print("version=%s" % prog["init_uts_ns"].name.version.string_().decode())
    n = 0
    found = []
    comms = []
    for t in for_each_task(prog):
        n += 1
        comm = t.comm.string_().decode(errors="replace")
        comms.append("%d:%s" % (t.pid.value_(), comm))
        if comm == marker:
            found.append((t.pid.value_(), comm, t.member_("__state").value_()))
    print("tasks=%d" % n)
    print("comms=%s" % " ".join(comms))
    for pid, comm, state in found:
        print("task=%d %s state=%#x" % (pid, comm, state))
    if not found:
        print("marker_missing=%s" % marker)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
