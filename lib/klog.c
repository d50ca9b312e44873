/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * klog.c - the kernel's hibernation and resume lines: one table, each
 * entry the line's pattern, what it means and what to check next. The
 * wording is the kernel's (kernel/power/hibernate.c, swap.c, snapshot.c,
 * arch/x86/power/hibernate.c, arch/arm64/kernel/hibernate.c,
 * security/lockdown/lockdown.c, drivers/pmdomain/core.c of 6.1 and
 * 6.12), checked against the serial logs of the fixtures, which real
 * kernels wrote under QEMU. Where ../shared/RESUME-NOTES.md and those
 * kernels disagree, the kernels win:
 * "Image not found (code N)" is pr_debug on 6.1 and 6.12 (a blank or spent
 * disk prints nothing there); "Memory map mismatch" is not in 6.1, whose
 * failure on a zero-flagged PFN list is only "resume failed (-14)"; the
 * codec check ("... compression is not available") exists from 6.9.
 */
#include "hibimgP.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

/*
 * Patterns: text as the kernel prints it after its prefix ("PM:
 * hibernation: ", "PM: ", "hibernate: ", "swsusp: ", which differ between
 * versions). %u digits, %d a signed number, %x hex digits: each a number
 * read into the line's values, in order; %s one word; %* anything. One
 * space matches a run of spaces (the kernel pads percentages).
 */
struct klog_entry {
	const char *id;
	const char *pat;
	enum hib_log_kind kind;
	enum hib_log_quantity q[2];
	const char *meaning;
	const char *next;
};

#define P HIB_LOG_PROGRESS
#define N HIB_LOG_NOTE
#define W HIB_LOG_WARNING
#define F HIB_LOG_FAILURE
#define Q0 { HIB_LOGQ_NONE, HIB_LOGQ_NONE }

static const char next_info[] =
	"hibimg info on the resume device (resume=, and resume_offset= for a swap file): is an image there, live or spent, and which kernel wrote it";
static const char next_failed[] =
	"the line before it names why; hibimg verify and hibimg check on the image";

static const struct klog_entry table[] = {
	/* boot: where the kernel will look */
	{ "nosave", "Registered nosave memory: %*", P, Q0,
	  "a physical range the snapshot will not save (firmware, ROM)", NULL },
	{ "resume-configured", "Configured hibernation resume from disk to %u", N, Q0,
	  "the resume device was set (resume= or a write to /sys/power/resume); the number is its dev_t",
	  NULL },
	{ "resume-partition", "Hibernation image partition %u:%u present", N, Q0,
	  "the resume device (major:minor) exists; the kernel reads its resume page next", NULL },
	{ "looking", "Looking for hibernation image.", P, Q0,
	  "the kernel reads the resume page for the S1SUSPEND signature", NULL },
	{ "not-found", "Image not found (code %d)", N, Q0,
	  "no image where resume= and resume_offset= point: -22 no S1SUSPEND there (offset stale after the swap file was recreated, image consumed by an earlier attempt, swap re-initialised), -16 the device is busy. pr_debug on 6.1 and 6.12: absent unless dynamic debug is on",
	  next_info },
	{ "not-present", "Hibernation image not present or could not be loaded.", N, Q0,
	  "nothing was resumed at this boot. Normal on a boot with no image; 6.1 prints it (pm_debug_messages) after each look that found none, 6.12 says nothing for a blank or spent disk",
	  "if a resume was expected: hibimg info on the resume device (spent: an earlier attempt consumed the image; plain swap: none was written) and the resume=/resume_offset= the kernel was given" },
	{ "lockdown", "Lockdown: %s: hibernation is restricted; see man kernel_lockdown.7", F, Q0,
	  "kernel lockdown (Secure Boot) forbids hibernation: the kernel writes no image and looks for none at boot, silently",
	  "mokutil --sb-state and /sys/kernel/security/lockdown; hibernation needs lockdown off (or a kernel that signs its image)" },
	{ "hibernation-disabled", "Hibernation not available.%*", F, Q0,
	  "hibernation is off in this kernel (nohibernate, lockdown, or memory it cannot save)",
	  "the kernel command line (nohibernate) and /sys/kernel/security/lockdown" },
	/* drivers/pmdomain/core.c (pr_fmt "PM: "), a late initcall on kernels
	 * with generic power domains (riscv64's ARCH_VIRT selects them): the
	 * rv612 fixture's boot prints it before its /init runs */
	{ "genpd-unused", "genpd: Disabling unused power domains", P, Q0,
	  "boot: the power domains no driver claimed are switched off; no part of hibernation or resume", NULL },

	/* hibernation: the image is made and written */
	{ "mode", "Hibernation mode set to '%s'", N, Q0,
	  "what the machine does once the image is written (/sys/power/disk): shutdown, platform (ACPI S4), reboot, suspend, test_resume",
	  NULL },
	{ "entry", "hibernation entry", P, Q0, "hibernation started (echo disk > /sys/power/state, systemctl hibernate)", NULL },
	{ "exit", "hibernation exit", P, Q0,
	  "the kernel left the hibernation path: after a resume the restored system runs on; after a failed hibernation the one that tried runs on",
	  NULL },
	{ "bitmaps", "Basic memory bitmaps %s", P, Q0, "the snapshot's page bitmaps were set up or freed", NULL },
	/* arm64 (arch/arm64/kernel/hibernate.c): the CPU whose MPIDR the
	 * record keeps as sleep_cpu_mpidr (the fixtures' arm* logs) */
	{ "arm64-hibernating-cpu", "Hibernating on CPU %d [mpidr:0x%x]", P, Q0,
	  "arm64: the image is saved on this CPU; its MPIDR goes into the restore record (sleep_cpu_mpidr), which the boot kernel must know",
	  NULL },
	{ "arm64-hibernated-cpu", "Hibernated on CPU %d [mpidr:0x%x]", N, Q0,
	  "arm64, resume: the record names the CPU that saved the image and the boot's logical number for it (-22: not one of the boot's CPUs)",
	  NULL },
	{ "marking-nosave", "Marking nosave pages: %*", P, Q0, "ranges the snapshot skips", NULL },
	{ "preallocating", "Preallocating image memory", P, Q0,
	  "the kernel reserves memory for the snapshot, swapping out or dropping caches down to /sys/power/image_size",
	  NULL },
	{ "allocated-pages", "Allocated %u pages for snapshot", P, Q0,
	  "pages reserved for the copy (at least what will be copied)", NULL },
	{ "allocated", "Allocated %u kbytes in %*", P, Q0, "how long the preallocation took", NULL },
	{ "creating", "Creating image:", P, Q0, "devices are frozen; the snapshot is taken with interrupts off", NULL },
	{ "need-to-copy", "Need to copy %u pages", P, { HIB_LOGQ_PFN_ENTRIES, HIB_LOGQ_NONE },
	  "the pages the snapshot saves: one PFN-list entry each, zero pages included since 6.6", NULL },
	{ "created", "Image created (%u pages copied, %u zero pages)", P,
	  { HIB_LOGQ_IMAGE_PAGES, HIB_LOGQ_ZERO_PAGES },
	  "the snapshot: pages copied into the image, and pages found all zero, which are only flagged in the PFN list (6.6+)",
	  NULL },
	{ "created", "Image created (%u pages copied)", P, { HIB_LOGQ_IMAGE_PAGES, HIB_LOGQ_NONE },
	  "the snapshot: pages copied into the image (before 6.6 every saved page is copied, zero or not)",
	  NULL },
	/* the seed mail's patch 1 (2026), not in 6.1 or 6.12: swsusp_save()
	 * times copy_data_pages() and prints it with swsusp_show_speed() */
	{ "copied", "Copied %u kbytes in %*", P, Q0,
	  "the copy of the snapshot (copy_data_pages(), interrupts off): the kbytes of the pages copied (zero pages not counted) and the time it took; the rate is the critical section's",
	  NULL },
	{ "create-error", "Error %d creating image", F, Q0,
	  "the snapshot could not be made (-12: not enough memory for the copy)",
	  "free memory at hibernation time, /sys/power/image_size" },
	{ "writing", "Writing hibernation image.", P, Q0, "the image goes to the swap area", NULL },
	{ "threads", "Using %u thread(s) for %s compression", P, Q0,
	  "compression threads (6.9+ names the codec: lzo or lz4); the count leaves no trace in the image", NULL },
	{ "threads", "Using %u thread(s) for compression", P, Q0,
	  "compression threads (3.2-6.8: always LZO); the count leaves no trace in the image", NULL },
	{ "saving", "Compressing and saving image data (%u pages)...", P,
	  { HIB_LOGQ_STREAM_PAGES, HIB_LOGQ_NONE },
	  "the stream after swsusp_info: PFN-list pages plus pages with data, compressed in chunks of 32", NULL },
	{ "saving", "Saving image data pages (%u pages)...", P, { HIB_LOGQ_STREAM_PAGES, HIB_LOGQ_NONE },
	  "the stream after swsusp_info, written uncompressed (hibernate=nocompress)", NULL },
	{ "saving-progress", "Image saving progress: %*", P, Q0, "share of the stream written", NULL },
	{ "saving-done", "Image saving done", P, Q0, "every stream page is on disk", NULL },
	{ "wrote", "Wrote %u kbytes in %*", P, { HIB_LOGQ_STREAM_KBYTES, HIB_LOGQ_NONE },
	  "the uncompressed stream after swsusp_info (stream pages x page size), not the bytes on disk", NULL },
	{ "compressed-size", "Image size after compression: %u kbytes", P,
	  { HIB_LOGQ_COMPRESSED_KBYTES, HIB_LOGQ_NONE },
	  "the compressed bytes of all chunks (their length words and padding not counted)", NULL },
	{ "saving-failed", "Image saving failed: %d", F, Q0,
	  "writing the image failed; nothing will be resumed from it", "the lines before it; free swap (swapon --show)" },
	{ "signature", "S|", P, Q0,
	  "the resume page was marked: S1SUSPEND written over the swap signature (S before, | after). The image is complete on disk",
	  NULL },
	{ "no-swap-header", "Swap header not found!", F, Q0,
	  "the resume device holds no swap signature, so no image can be marked there",
	  "resume= and resume_offset= against swapon --show; hibimg info on the device" },
	{ "no-swap-device", "Cannot find swap device, try swapon -a", F, Q0,
	  "the resume device is not an active swap area: the kernel has nowhere to write",
	  "swapon --show against resume= (and resume_offset= for a swap file); systemd's HibernateLocation" },
	{ "no-space", "Not enough free swap", F, Q0,
	  "the image does not fit in the free swap", "swapon --show; /sys/power/image_size to make it smaller" },
	{ "wakeup", "Wakeup event detected during hibernation, rolling back.", W, Q0,
	  "a wakeup source fired while the image was made: hibernation is abandoned and the system runs on",
	  "/sys/kernel/debug/wakeup_sources, /sys/power/pm_wakeup_irq" },
	{ "compression-failed", "%s compression failed", F, Q0, "a chunk could not be compressed", NULL },
	{ "device-phase", "%* of devices complete after %*", P, Q0,
	  "drivers finished one phase (freeze, thaw, quiesce, restore ...); a slow one shows here, a failing driver prints its own line near it",
	  NULL },
	{ "sleep-state", "ACPI: PM: Preparing to enter system sleep state %s", P, Q0,
	  "the machine goes to S4 (hibernation's platform mode) or S5 (power off); after \"Wrote\" and \"S|\" the image is complete on disk, after a resume it is a plain shutdown", NULL },

	/* resume: the boot kernel reads the image back */
	{ "resume", "resume from hibernation", P, Q0, "the boot kernel starts a resume", NULL },
	{ "found", "Image signature found, resuming", P, Q0,
	  "S1SUSPEND found; the kernel has already put the swap signature back, so the area is spent from here on (pr_debug)",
	  NULL },
	{ "hw-sig", "Suspend image hardware signature mismatch (%x now %x); aborting resume.", F, Q0,
	  "the image was written with acpi_sleep=s4_hwsig and the firmware's FACS hardware signature changed",
	  "firmware or hardware changes since hibernation; hibimg check --facs with the FACS table" },
	{ "hw-changed", "Hardware changed while hibernated, success doubtful!", W, Q0,
	  "the FACS hardware signature changed (without s4_hwsig the resume goes on anyway)",
	  "firmware or hardware changes since hibernation" },
	{ "preparing", "Preparing processes for hibernation restore.", P, Q0, "processes are frozen before the image is loaded", NULL },
	{ "loading", "Loading hibernation image.", P, Q0, "the image is read into memory", NULL },
	{ "threads", "Using %u thread(s) for %s decompression", P, Q0, "decompression threads", NULL },
	{ "threads", "Using %u thread(s) for decompression", P, Q0, "decompression threads", NULL },
	{ "codec-missing", "%s compression is not available", F, Q0,
	  "the boot kernel lacks the image's codec (6.9+ checks it; older kernels try LZO and fail to decode an LZ4 image)",
	  "CONFIG_CRYPTO_LZ4 / CONFIG_CRYPTO_LZO of the boot kernel, and its initramfs modules; hibimg check --config" },
	{ "loading-pages", "Loading and decompressing image data (%u pages)...", P,
	  { HIB_LOGQ_STREAM_PAGES, HIB_LOGQ_NONE }, "the stream after swsusp_info, as the header announces it", NULL },
	{ "loading-pages", "Loading image data pages (%u pages)...", P,
	  { HIB_LOGQ_STREAM_PAGES, HIB_LOGQ_NONE }, "the uncompressed stream after swsusp_info", NULL },
	{ "loading-progress", "Image loading progress: %*", P, Q0, "share of the stream read", NULL },
	{ "loading-done", "Image loading done", P, Q0, "every stream page was read and decoded", NULL },
	{ "read", "Read %u kbytes in %*", P, { HIB_LOGQ_STREAM_KBYTES, HIB_LOGQ_NONE },
	  "the stream read back (stream pages x page size); also printed after a failure, for what was read",
	  NULL },
	{ "loaded", "Image successfully loaded", P, Q0,
	  "the format was fine; what fails after this is a driver's restore, which no offline tool sees",
	  NULL },
	{ "restored", "Hibernation image restored successfully.", P, Q0, "the restored system runs", NULL },
	{ "crc", "Invalid image CRC32!", F, Q0,
	  "every chunk decoded but the data's CRC32 differs from the resume page's: damaged data pages",
	  "hibimg verify on the image (which chunk), the disk's health" },
	{ "compressed-length", "Invalid %s compressed length", F, Q0,
	  "a chunk's length word is 0 or above the worst case: a damaged chunk (or an unfixed writer on a weakly ordered CPU)",
	  "hibimg verify and hibimg dump chunks on the image" },
	{ "uncompressed-length", "Invalid %s uncompressed length", F, Q0,
	  "a chunk decoded to a size that is not whole pages or too large", "hibimg verify on the image" },
	{ "decompression-failed", "%s decompression failed", F, Q0,
	  "a chunk does not decode: damage, or (on kernels before 6.9, which try LZO) an LZ4 image",
	  "hibimg verify on the image; its compression (hibimg info) against what the boot kernel decodes" },
	{ "arch-mismatch", "Image mismatch: architecture specific data", F, Q0,
	  "the arch record was refused; on x86 the line just before it says why (memory map, header format)",
	  "hibimg check with the boot kernel and the machine's memmap" },
	{ "memory-size", "Image mismatch: memory size", F, Q0,
	  "the boot kernel sees another number of physical pages than the one that hibernated",
	  "the RAM size, mem=, and the firmware's memory map; hibimg check --memmap" },
	{ "mismatch", "Image mismatch: %*", F, Q0,
	  "the image was written by another kernel than the boot kernel (release, version, machine) and the architecture cannot restore across kernels",
	  "the boot kernel against the one hibimg info finds in the image" },
	{ "e820", "Hibernate inconsistent memory map detected!", F, Q0,
	  "x86: the firmware's e820 memory map differs from the one at hibernation (other RAM, firmware update, often intermittent on coreboot)",
	  "hibimg check --memmap with a copy of /sys/firmware/memmap from the boot" },
	{ "header-format", "Unrecognized hibernate image header format!", F, Q0,
	  "x86: the restore record's magic is from another era of the format", "hibimg info (restore era) against the boot kernel's version" },
	{ "memory-map", "Memory map mismatch at 0x%x after hibernation", F, Q0,
	  "a saved PFN is not valid on the boot kernel (6.6+; 6.1 has no such line and fails with resume failed (-14) alone)",
	  "the RAM size and memory map; a 6.6+ image (zero pages) on an older kernel" },
	{ "arm64-kernel", "Hibernate image not generated by this kernel!", F, Q0,
	  "arm64/riscv: the boot kernel's uname -v differs from the image's: only the same build restores",
	  "boot the kernel hibimg info finds in the image" },
	{ "arm64-cpu", "Hibernated on a CPU not known to this kernel!", F, Q0,
	  "arm64: the CPU that saved the image is not online on the boot kernel", "the CPUs and maxcpus= of the boot" },
	{ "read-error", "Read-error on swap-device (%u:%u:%u)", F, Q0,
	  "a page of the image could not be read from the device", "the disk's health, the device named" },
	{ "failed-to-load", "Failed to load image, recovering.", F, Q0,
	  "the image was not loaded: the kernel frees it and boots on. It follows every load failure, the line before it decides",
	  next_failed },
	{ "resume-failed", "resume failed (%d)", F, Q0,
	  "the resume did not happen: -14 bad PFN list (6.1 with a 6.6+ image), -22 a bad chunk, -61 CRC32, -12 out of memory, -1 image mismatch, -5 I/O or a driver",
	  next_failed },
	{ "resume-error", "Error %d resuming", F, Q0, "the resume failed after the image was loaded", next_failed },
	{ "systemd-location", "HibernateLocation system identifier doesn't match currently running system%*", W, Q0,
	  "systemd: the EFI variable HibernateLocation was written by another OS install (os-release ids differ)",
	  "hibimg check --efivar with the variable" },
};

#undef P
#undef N
#undef W
#undef F
#undef Q0

/* the kernel's prefixes, longest first: 6.x hibernate.c/snapshot.c, swap.c
 * and older kernels, arm64, 2.6 */
static const char *const prefixes[] = { "PM: hibernation: ", "PM: ", "hibernate: ", "swsusp: " };

struct caps {
	unsigned int n;
	int64_t v[2];
};

static int match(const char *p, const char *s, const char *end, struct caps *c)
{
	const char *t;

	for (; *p; p++) {
		if (*p == ' ') {
			if (s == end || *s != ' ')
				return 0;
			while (s < end && *s == ' ')
				s++;
			continue;
		}
		if (*p != '%') {
			if (s == end || *s != *p)
				return 0;
			s++;
			continue;
		}
		p++;
		switch (*p) {
		case '*':
			for (t = end; t >= s; t--) {
				struct caps k = *c;

				if (match(p + 1, t, end, &k)) {
					*c = k;
					return 1;
				}
			}
			return 0;
		case 's':
			/* one word, the shortest that lets the rest match */
			for (t = s + 1; t <= end && !isspace((unsigned char)t[-1]); t++) {
				struct caps k = *c;

				if (match(p + 1, t, end, &k)) {
					*c = k;
					return 1;
				}
			}
			return 0;
		case 'u':
		case 'd':
		case 'x': {
			int neg = 0, base = *p == 'x' ? 16 : 10;
			uint64_t v = 0;

			if (*p == 'd' && s < end && *s == '-') {
				neg = 1;
				s++;
			}
			t = s;
			while (s < end && (base == 16 ? isxdigit((unsigned char)*s) :
					   isdigit((unsigned char)*s))) {
				int d = isdigit((unsigned char)*s) ? *s - '0' :
					tolower((unsigned char)*s) - 'a' + 10;

				v = v * (uint64_t)base + (uint64_t)d;
				s++;
			}
			if (s == t)
				return 0;
			if (c->n < 2)
				c->v[c->n] = neg ? -(int64_t)v : (int64_t)v;
			c->n++;
			continue;
		}
		default:
			return 0;
		}
	}
	return s == end;
}

/* Skips what a log adds before the kernel's message: a syslog "<6>", a
 * journal's "Dec 01 12:00:00 host kernel: " (or ISO time), the kernel's
 * "[    7.288129] " or dmesg -T's "[Tue Dec  1 12:00:00 2026] ", and on a
 * serial console whatever the firmware left before the first timestamp. */
static const char *message_start(const char *s, const char *end)
{
	const char *p = s, *k, *q;
	size_t i;

	if (p < end && *p == '<') {
		for (q = p + 1; q < end && isdigit((unsigned char)*q); q++)
			;
		if (q > p + 1 && q < end && *q == '>')
			p = q + 1;
	}
	/* the journal's prefix ends in " kernel: " before any '[' */
	for (k = p; k + 9 <= end && k < p + 160 && *k != '['; k++)
		if (!memcmp(k, " kernel: ", 9)) {
			p = k + 9;
			break;
		}
	/* dmesg -T: a bracketed date at the start */
	if (p < end && *p == '[') {
		for (q = p + 1; q < end && q < p + 40 && *q != ']'; q++)
			;
		if (q < end && *q == ']') {
			p = q + 1;
			while (p < end && *p == ' ')
				p++;
			return p;
		}
	}
	/* "[ seconds.micro]" anywhere: a serial line may start with junk */
	for (i = 0; p + i < end; i++) {
		const char *b = p + i;

		if (*b != '[')
			continue;
		q = b + 1;
		while (q < end && *q == ' ')
			q++;
		k = q;
		while (q < end && isdigit((unsigned char)*q))
			q++;
		if (q == k || q >= end || *q != '.')
			continue;
		k = ++q;
		while (q < end && isdigit((unsigned char)*q))
			q++;
		if (q == k || q >= end || *q != ']')
			continue;
		p = q + 1;
		while (p < end && *p == ' ')
			p++;
		return p;
	}
	return p;
}

static const struct klog_entry *lookup(const char *msg, const char *end, struct caps *c)
{
	size_t i, j;

	for (j = 0; j <= sizeof(prefixes) / sizeof(prefixes[0]); j++) {
		const char *m = msg;

		if (j < sizeof(prefixes) / sizeof(prefixes[0])) {
			size_t n = strlen(prefixes[j]);

			if ((size_t)(end - msg) < n || memcmp(msg, prefixes[j], n))
				continue;
			m += n;
		}
		/* j == the count: the message as it is (no prefix) */
		for (i = 0; i < sizeof(table) / sizeof(table[0]); i++) {
			memset(c, 0, sizeof(*c));
			if (match(table[i].pat, m, end, c))
				return &table[i];
		}
	}
	return NULL;
}

int hib_log_explain(const char *line, size_t len, struct hib_log_line *out)
{
	struct hib_log_line r;
	const struct klog_entry *e;
	const char *end = line + len, *msg;
	struct caps c;
	unsigned int i;

	if (!out || out->size < HIB_V1_hib_log_line || out->size > sizeof(r))
		return HIB_ERR_INVAL;
	while (end > line && (end[-1] == '\n' || end[-1] == '\r' || end[-1] == ' '))
		end--;
	msg = message_start(line, end);
	memset(&r, 0, sizeof(r));
	r.size = sizeof(r);
	r.msg_offset = (size_t)(msg - line);
	e = lookup(msg, end, &c);
	if (!e) {
		size_t j;

		/* a PM line the table does not know is still one to show */
		for (j = 0; j < sizeof(prefixes) / sizeof(prefixes[0]); j++)
			if ((size_t)(end - msg) >= strlen(prefixes[j]) &&
			    !memcmp(msg, prefixes[j], strlen(prefixes[j])))
				break;
		if (j == sizeof(prefixes) / sizeof(prefixes[0]))
			return 0;
		r.kind = HIB_LOG_UNKNOWN;
		r.meaning = "a power-management line hibimg has no entry for (not necessarily about hibernation)";
		hib_abi_out(out, &r);
		return 1;
	}
	r.id = e->id;
	r.kind = e->kind;
	r.meaning = e->meaning;
	r.next = e->next;
	r.nvalues = c.n > 2 ? 2 : c.n;
	for (i = 0; i < r.nvalues; i++) {
		r.value[i] = c.v[i];
		r.quantity[i] = e->q[i];
	}
	hib_abi_out(out, &r);
	return 1;
}

const char *hib_log_kind_name(enum hib_log_kind k)
{
	switch (k) {
	case HIB_LOG_PROGRESS: return "progress";
	case HIB_LOG_NOTE:     return "note";
	case HIB_LOG_WARNING:  return "warning";
	case HIB_LOG_FAILURE:  return "failure";
	case HIB_LOG_UNKNOWN:  break;
	}
	return "unknown";
}

const char *hib_log_quantity_name(enum hib_log_quantity q)
{
	switch (q) {
	case HIB_LOGQ_STREAM_KBYTES:     return "stream_kbytes";
	case HIB_LOGQ_STREAM_PAGES:      return "stream_pages";
	case HIB_LOGQ_PFN_ENTRIES:       return "pfn_entries";
	case HIB_LOGQ_IMAGE_PAGES:       return "image_pages";
	case HIB_LOGQ_ZERO_PAGES:        return "zero_pages";
	case HIB_LOGQ_COMPRESSED_KBYTES: return "compressed_kbytes";
	case HIB_LOGQ_NONE:              break;
	}
	return "none";
}
