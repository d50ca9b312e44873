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

/* /sys/kernel/vmcoreinfo holds "%lx %x\n": where the note is, not the
 * note; a user who passes it gets told so. */
static bool sysfs_pointer(const char *t, size_t len)
{
	size_t i = 0, fields = 0;

	while (i < len && fields < 3) {
		size_t s = i;

		while (i < len && ((t[i] >= '0' && t[i] <= '9') || (t[i] >= 'a' && t[i] <= 'f')))
			i++;
		if (i == s)
			return false;
		fields++;
		if (i < len && (t[i] == ' ' || t[i] == '\n'))
			i++;
		else if (i < len)
			return false;
	}
	return fields == 2 && i == len;
}

/*
 * A caller's VMCOREINFO text, as the kernel writes it: "KEY=value\n"
 * lines, printable ASCII, the first OSRELEASE=. Trailing NULs (a page
 * dumped whole) are not part of it. A bounded size: the kernel's is one
 * page (VMCOREINFO_BYTES), 1 MiB is far past any real one.
 */
int hib_vmci_check(struct hib_image *img, const char *what, const char *t,
		   size_t len, size_t *used)
{
	size_t i = 0, line = 1;

	while (len && !t[len - 1])
		len--;
	if (!len)
		return hib_seterr(img, HIB_ERR_INVAL, "%s: empty, not a VMCOREINFO text", what);
	if (len > HIB_VMCI_MAX)
		return hib_seterr(img, HIB_ERR_INVAL,
				  "%s: %zu bytes, more than a VMCOREINFO text has (at most %u)",
				  what, len, HIB_VMCI_MAX);
	if (sysfs_pointer(t, len))
		return hib_seterr(img, HIB_ERR_INVAL,
				  "%s: the address and size of the note (what /sys/kernel/vmcoreinfo holds), not its text: give the text, e.g. makedumpfile -g's output",
				  what);
	if (len < 10 || memcmp(t, "OSRELEASE=", 10))
		return hib_seterr(img, HIB_ERR_INVAL,
				  "%s: not a VMCOREINFO text (it starts with OSRELEASE=)", what);
	while (i < len) {
		size_t s = i, eq = 0;

		for (; i < len && t[i] != '\n'; i++) {
			unsigned char c = (unsigned char)t[i];

			if (c < 0x20 || c > 0x7e)
				return hib_seterr(img, HIB_ERR_INVAL,
						  "%s: line %zu: byte 0x%02x, not printable: not a VMCOREINFO text",
						  what, line, c);
			if (c == '=' && !eq)
				eq = i;
		}
		if (!eq || eq == s)
			return hib_seterr(img, HIB_ERR_INVAL,
					  "%s: line %zu is not KEY=value: not a VMCOREINFO text",
					  what, line);
		i++;
		line++;
	}
	*used = len;
	return HIB_OK;
}
