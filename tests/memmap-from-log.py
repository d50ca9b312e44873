#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""A /sys/firmware/memmap directory from a boot log's "BIOS-e820:" lines.

  tests/memmap-from-log.py LOG OUTDIR     writes OUTDIR/N/{start,end,type}
  tests/memmap-from-log.py --crc DIR      prints compute_e820_crc32() of a
                                          memmap copy, as zlib computes it

e820__memory_setup() prints e820_table right after copying it into
e820_table_firmware, the table sysfs exports (arch/x86/kernel/e820.c), so
the lines are the entries, in order; e820_print_type()'s words map back to
e820_type_to_string()'s names. tests/cli-check.sh proves it against copies
the guest made (fixtures/memmap/). Only the first boot of the log is read.
"""
import os
import re
import struct
import sys
import zlib

# e820_print_type() -> (e820_type_to_string(), E820_TYPE_*)
TYPES = {
    'usable': ('System RAM', 1),
    'reserved': ('Reserved', 2),
    'ACPI data': ('ACPI Tables', 3),
    'ACPI NVS': ('ACPI Non-volatile Storage', 4),
    'unusable': ('Unusable memory', 5),
    'persistent (type 7)': ('Persistent Memory', 7),
    'persistent (type 12)': ('Persistent Memory (legacy)', 12),
    'soft reserved': ('Soft Reserved', 0xefffffff),
}
NUMBERS = {name: num for name, num in TYPES.values()}


def from_log(log, out):
    entries, seen = [], False
    for line in open(log, errors='replace'):
        m = re.search(r'BIOS-e820: \[mem 0x([0-9a-f]+)-0x([0-9a-f]+)\] (.*)$', line.rstrip())
        if m:
            entries.append((int(m.group(1), 16), int(m.group(2), 16), TYPES[m.group(3)][0]))
            seen = True
        elif seen:
            break
    if not entries:
        sys.exit('%s: no BIOS-e820 lines' % log)
    for i, (start, end, name) in enumerate(entries):
        d = os.path.join(out, str(i))
        os.makedirs(d, exist_ok=True)
        for f, v in (('start', '0x%x' % start), ('end', '0x%x' % end), ('type', name)):
            with open(os.path.join(d, f), 'w') as fh:
                fh.write(v + '\n')


def crc(d):
    n = len([e for e in os.listdir(d) if e.isdigit()])
    data = struct.pack('<I', n)
    for i in range(n):
        def rd(f):
            return open(os.path.join(d, str(i), f)).read().rstrip('\n')
        start, end = int(rd('start'), 16), int(rd('end'), 16)
        data += struct.pack('<QQI', start, end - start + 1, NUMBERS[rd('type')])
    print('0x%08x' % zlib.crc32(data))


if len(sys.argv) == 3 and sys.argv[1] == '--crc':
    crc(sys.argv[2])
elif len(sys.argv) == 3:
    from_log(sys.argv[1], sys.argv[2])
else:
    sys.exit(__doc__)
