/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * kident.c - the kernel's identity out of its own variables, read through
 * its page tables (kmem.c): init_uts_ns's struct new_utsname (what uname
 * prints: SYMBOL(init_uts_ns) + OFFSET(uts_namespace.name), 6 fields of
 * __NEW_UTS_LEN + 1 = 65 bytes), VMCOREINFO's BUILD-ID= line (5.9+), and
 * the command line.
 *
 * saved_command_line is a char * that VMCOREINFO does not export, and
 * without symbols nothing else points at it; start_kernel() prints it as
 * "Kernel command line: %s" into the log, so that record (printk.c) is
 * the source: the same bytes, cut only where a record is (1024 bytes).
 * x86's "Command line:" record is boot_command_line, before bootconfig
 * and the arch's additions: not the one taken.
 */
#include "kmemP.h"

#include <string.h>

#define UTS_LEN 65

static void take_field(char *dst, const unsigned char *src)
{
	size_t i;

	for (i = 0; i < UTS_LEN - 1 && src[i]; i++)
		dst[i] = (src[i] >= 0x20 && src[i] < 0x7f) ? (char)src[i] : '?';
	dst[i] = 0;
}

static void read_uts(struct hib_kmem *km, struct hib_kernel_id *k)
{
	unsigned char b[6 * UTS_LEN];
	uint64_t va, lost;
	int64_t off;

	if (!hib_vmci_lx(km->vmci, km->ps, "SYMBOL(init_uts_ns)=", &va)) {
		k->uts_why = "VMCOREINFO has no SYMBOL(init_uts_ns)";
		return;
	}
	/* 4.12+ (with the kref first until 5.10): no guess without it */
	if (!hib_vmci_ld(km->vmci, km->ps, "OFFSET(uts_namespace.name)=", &off) || off < 0) {
		k->uts_why = "VMCOREINFO has no OFFSET(uts_namespace.name)";
		return;
	}
	k->uts_va = va + (uint64_t)off;
	lost = km->lost_reads;
	if (hib_kmem_read_virt(km, k->uts_va, b, sizeof(b))) {
		k->uts_why = km->lost_reads != lost ?
			     "init_uts_ns could not be read: the damage took its page or a page table" :
			     "init_uts_ns could not be read";
		return;
	}
	/* the name starts with sysname "Linux" on every kernel */
	if (memcmp(b, "Linux", 6)) {
		k->uts_why = "init_uts_ns does not start with \"Linux\"";
		return;
	}
	take_field(k->sysname, b);
	take_field(k->nodename, b + UTS_LEN);
	take_field(k->release, b + 2 * UTS_LEN);
	take_field(k->version, b + 3 * UTS_LEN);
	take_field(k->machine, b + 4 * UTS_LEN);
	take_field(k->domainname, b + 5 * UTS_LEN);
	k->have_uts = 1;
}

static void read_cmdline(struct hib_kmem *km, struct hib_kernel_id *k)
{
	static const char pfx[] = "Kernel command line: ";
	const size_t n = sizeof(pfx) - 1;
	struct hib_printk *pk;
	const struct hib_printk_rec *r;
	uint64_t lost = km->lost_reads;

	if (hib_printk_open(km, &pk)) {
		k->cmdline_why = km->lost_reads != lost ?
				 "the log cannot be read: the damage took a page of its ring" :
				 "the log cannot be read";
		return;
	}
	while (hib_printk_next(pk, &r) == 1) {
		size_t i, len;

		if (r->text_len < n || memcmp(r->text, pfx, n))
			continue;
		len = r->text_len - n;
		if (len >= sizeof(k->cmdline))
			len = sizeof(k->cmdline) - 1;
		for (i = 0; i < len; i++) {
			unsigned char c = (unsigned char)r->text[n + i];

			k->cmdline[i] = (c >= 0x20 && c < 0x7f) ? (char)c : '?';
		}
		k->cmdline[len] = 0;
		k->have_cmdline = 1;
		break;
	}
	if (!k->have_cmdline)
		k->cmdline_why = hib_printk_skipped(pk) ?
				 "no \"Kernel command line:\" record among those the damage left" :
				 "no \"Kernel command line:\" record in the log";
	hib_printk_free(pk);
}

int hib_kmem_identity(struct hib_kmem *km, struct hib_kernel_id *out)
{
	struct hib_kernel_id k;
	int rc = HIB_ABI_SIZE(km->img, hib_kernel_id, out);

	if (rc)
		return rc;
	memset(&k, 0, sizeof(k));
	if (!km->vmci) {
		k.uts_why = k.cmdline_why = hib_kmem_no_vmci(km);
	} else {
		/* 40 hex digits of the NT_GNU_BUILD_ID note, as printed */
		if (hib_vmci_value(km->vmci, km->ps, "BUILD-ID=", k.build_id,
				   sizeof(k.build_id)))
			k.have_build_id = 1;
		read_uts(km, &k);
		read_cmdline(km, &k);
	}
	hib_abi_out(out, &k);
	return HIB_OK;
}
