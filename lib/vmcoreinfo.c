/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * vmcoreinfo.c - the kernel's VMCOREINFO text (kernel/crash_core.c,
 * vmcoreinfo_append_str()): one "KEY=value\n" line each, in a zeroed page
 * of its own that starts with OSRELEASE=. identity.c names the kernel from
 * it, export.c copies it into an ELF note and takes the x86 kernel-image
 * window from it. The page is the image's to choose: nothing here assumes
 * a NUL or a newline where the kernel would have put one.
 */
#include "hibimgP.h"

#include <stdlib.h>
#include <string.h>

bool hib_vmci_page(const unsigned char *pg, size_t len)
{
	return len >= 10 && !memcmp(pg, "OSRELEASE=", 10);
}

/* Lines end at '\n'; the text at the first NUL or after len bytes. A line
 * that holds the key and nothing after it is not taken: the kernel writes
 * no empty values, so a later line may hold the real one. */
const char *hib_vmci_value(const unsigned char *text, size_t len, const char *key,
			   char *buf, size_t cap)
{
	size_t kl = strlen(key), i = 0;

	while (i < len && text[i]) {
		size_t j = i;

		while (j < len && text[j] && text[j] != '\n')
			j++;
		if (j - i > kl && !memcmp(text + i, key, kl)) {
			size_t n = j - i - kl;

			if (n >= cap)
				n = cap - 1;
			memcpy(buf, text + i + kl, n);
			buf[n] = 0;
			return buf;
		}
		i = j + 1;
	}
	return NULL;
}

/* The kernel prints a long, in decimal or hex: a value longer than that
 * is cut at 127 bytes before it is parsed. */
#define VALUE_CAP 128

bool hib_vmci_ld(const unsigned char *text, size_t len, const char *key, int64_t *v)
{
	char buf[VALUE_CAP];

	if (!hib_vmci_value(text, len, key, buf, sizeof(buf)))
		return false;
	*v = strtoll(buf, NULL, 10);
	return true;
}

bool hib_vmci_lx(const unsigned char *text, size_t len, const char *key, uint64_t *v)
{
	char buf[VALUE_CAP];

	if (!hib_vmci_value(text, len, key, buf, sizeof(buf)))
		return false;
	*v = strtoull(buf, NULL, 16);
	return true;
}
