/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * kconfig.c - a kernel configuration (/boot/config-*, or the IKCONFIG copy
 * inside the kernel): "CONFIG_X=value" and "# CONFIG_X is not set" lines.
 * Its header ("# Linux/x86 6.1.192 Kernel Configuration") names the
 * version when no kernel file does; the symbols tell the architecture and
 * page size and which codecs the kernel has.
 */
#include "targetP.h"

#include <stdlib.h>
#include <string.h>

/* The value of CONFIG_name in text, "n" if unset or absent. */
static const char *lookup(const char *text, size_t len, const char *name,
			  char *buf, size_t cap)
{
	size_t nl = strlen(name);
	const char *p = text, *end = text + len;

	while (p < end) {
		const char *eol = memchr(p, '\n', (size_t)(end - p));
		size_t ll;

		if (!eol)
			eol = end;
		ll = (size_t)(eol - p);
		if (ll > nl && !memcmp(p, name, nl) && p[nl] == '=') {
			const char *v = p + nl + 1;
			size_t vl = ll - nl - 1;

			/* strings keep their quotes in the file, not here */
			if (vl >= 2 && v[0] == '"' && v[vl - 1] == '"') {
				v++;
				vl -= 2;
			}
			if (vl >= cap)
				vl = cap - 1;
			memcpy(buf, v, vl);
			buf[vl] = 0;
			return buf;
		}
		p = eol + 1;
	}
	return "n";
}

const char *hib_target_config(const struct hib_target *t, const char *name)
{
	/* the answer is per call: one static buffer per thread is enough */
	static __thread char buf[256];

	if (!t->config)
		return NULL;
	return lookup(t->config, t->config_len, name, buf, sizeof(buf));
}

static bool is_y(const struct hib_target *t, const char *name)
{
	const char *v = hib_target_config(t, name);

	return v && !strcmp(v, "y");
}

/* What a config says of the architecture, the page size and the version,
 * for what the kernel file did not say. */
static void from_config(struct hib_target *t)
{
	struct hib_target_info *in = &t->info;
	static const char hdr[] = "# Linux/";
	const char *p;

	if (in->arch == HIB_TARCH_UNKNOWN) {
		if (is_y(t, "CONFIG_X86_64"))
			in->arch = HIB_TARCH_X86_64;
		else if (is_y(t, "CONFIG_X86_32"))
			in->arch = HIB_TARCH_I386;
		else if (is_y(t, "CONFIG_ARM64"))
			in->arch = HIB_TARCH_ARM64;
		else if (is_y(t, "CONFIG_RISCV") && is_y(t, "CONFIG_64BIT"))
			in->arch = HIB_TARCH_RISCV64;
	}
	if (!in->page_size) {
		if (is_y(t, "CONFIG_ARM64_16K_PAGES"))
			in->page_size = 16384;
		else if (is_y(t, "CONFIG_ARM64_64K_PAGES"))
			in->page_size = 65536;
		else if (is_y(t, "CONFIG_ARM64_4K_PAGES") || is_y(t, "CONFIG_X86") ||
			 is_y(t, "CONFIG_RISCV"))
			in->page_size = 4096;
	}
	if (in->kver)
		return;
	p = strstr(t->config, hdr);
	if (p && (p == t->config || p[-1] == '\n')) {
		const char *sp = strchr(p + sizeof(hdr) - 1, ' ');

		if (sp && hib_kver_parse(sp + 1)) {
			in->kver = hib_kver_parse(sp + 1);
			in->kernel_from = "config file";
		}
	}
}

int hib_kconfig_take(struct hib_target *t, char *text, size_t len,
		     const char *from, const char *what)
{
	if (memchr(text, 0, len) || (!strstr(text, "\nCONFIG_") &&
				     strncmp(text, "CONFIG_", 7))) {
		free(text);
		return hib_tgt_seterr(t, HIB_ERR_DAMAGED,
				      "%s: no CONFIG_ lines: not a kernel configuration", what);
	}
	free(t->config);
	t->config = text;
	t->config_len = len;
	t->config_set = true;
	t->info.have_config = 1;
	t->info.config_from = from;
	from_config(t);
	hib_memmap_derive(t);
	return HIB_OK;
}

int hib_target_set_config(struct hib_target *t, const char *path)
{
	unsigned char *text;
	size_t len;
	int rc = hib_tgt_slurp(t, path, HIB_TGT_TEXT_MAX, &text, &len);

	if (!rc)
		rc = hib_kconfig_take(t, (char *)text, len, "config file", path);
	if (rc)
		hib_tgt_problem(t, HIB_TIN_CONFIG);
	return rc;
}
