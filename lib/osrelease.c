/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * osrelease.c - the booted system's os-release(5). systemd-hibernate-resume
 * uses HibernateLocation only where its osReleaseId and osReleaseImageId
 * equal this file's ID and IMAGE_ID (both absent counts as equal:
 * validate_efi_hibernate_location(), hibernate-resume-config.c). In an
 * initrd too systemd 257 reads /etc/os-release, else /usr/lib/os-release,
 * not /etc/initrd-release (fixtures/check-doctor-systemd.sh).
 */
#include "targetP.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define OSREL_MAX (64u << 10)

/* One assignment's value, unquoted as a shell would (the forms os-release(5)
 * allows: bare, "..." with \" \\ \$ \` escapes, '...'). false: an
 * unterminated quote. */
static bool unquote(const char *v, const char *end, char *out, size_t cap)
{
	size_t n = 0;
	char q = 0;

	for (; v < end; v++) {
		char c = *v;

		if (q) {
			if (c == q) {
				q = 0;
				continue;
			}
			if (q == '"' && c == '\\' && v + 1 < end && strchr("\"\\$`", v[1]))
				c = *++v;
		} else if (c == '"' || c == '\'') {
			q = c;
			continue;
		} else if (c == '\\' && v + 1 < end) {
			c = *++v;
		} else if (c == ' ' || c == '\t') {
			break;      /* trailing blanks; a comment after them */
		}
		if (n + 1 < cap)
			out[n++] = c;
	}
	out[n] = 0;
	return q == 0;
}

int hib_target_set_os_release(struct hib_target *t, const char *path)
{
	struct hib_target_info *in = &t->info;
	unsigned char *b;
	size_t len;
	char *p, *e, *nl;
	unsigned int line = 0;
	int rc = hib_tgt_slurp(t, path, OSREL_MAX, &b, &len);

	if (rc)
		goto problem;
	in->os_id[0] = in->os_image_id[0] = 0;
	for (p = (char *)b, e = p + len; p < e; p = nl + 1) {
		char *eq, *k;

		line++;
		nl = memchr(p, '\n', (size_t)(e - p));
		if (!nl)
			nl = e;
		for (k = p; k < nl && (*k == ' ' || *k == '\t'); k++)
			;
		if (k == nl || *k == '#')
			continue;
		eq = memchr(k, '=', (size_t)(nl - k));
		if (!eq) {
			rc = hib_tgt_seterr(t, HIB_ERR_DAMAGED,
					    "%s: line %u: not KEY=value, as os-release(5) has it", path, line);
			break;
		}
		if ((eq - k == 2 && !memcmp(k, "ID", 2)) || (eq - k == 8 && !memcmp(k, "IMAGE_ID", 8))) {
			char *to = eq - k == 2 ? in->os_id : in->os_image_id;

			if (!unquote(eq + 1, nl, to, sizeof(in->os_id))) {
				rc = hib_tgt_seterr(t, HIB_ERR_DAMAGED, "%s: line %u: a quote left open",
						    path, line);
				break;
			}
		}
	}
	free(b);
	if (!rc) {
		in->have_os_release = 1;
		return HIB_OK;
	}
	in->os_id[0] = in->os_image_id[0] = 0;
problem:
	hib_tgt_problem(t, HIB_TIN_OSRELEASE);
	return rc;
}
