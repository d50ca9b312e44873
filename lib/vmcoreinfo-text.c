/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * vmcoreinfo-text.c - a VMCOREINFO text the caller brings (hibimg export
 * --vmcoreinfo, makedumpfile -g's output) checked for the kernel's shape
 * before it becomes an ELF or kdump note. Apart from vmcoreinfo.c, which
 * reads the image's page and reports nothing: this one sets the handle's
 * message.
 */
#include "hibimgP.h"

#include <string.h>

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
