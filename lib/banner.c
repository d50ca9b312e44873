/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * banner.c - linux_banner, as init/version.c builds it: "Linux version "
 * UTS_RELEASE " (" LINUX_COMPILE_BY "@" LINUX_COMPILE_HOST ") ("
 * LINUX_COMPILER ") " UTS_VERSION. Read from a kernel's file (kfile.c)
 * and from the memory an image saved (identity.c).
 */
#include "hibimgP.h"

#include <string.h>

/* A balanced "( ... )" at *p; false if none. */
static bool skip_group(const char **p)
{
	const char *s = *p;
	int depth = 0;

	if (*s != '(')
		return false;
	for (; *s; s++) {
		if (*s == '(')
			depth++;
		else if (*s == ')' && --depth == 0) {
			*p = s + 1;
			return true;
		}
	}
	return false;
}

/* "REL (by@host) [(compiler) ]VERSION": release and uname -v. The banner
 * has the compiler group, the bzImage's kernel_version string does not. */
bool hib_banner_split(const char *s, char rel[65], char ver[65], int groups)
{
	const char *sp = strchr(s, ' ');
	size_t n;
	int g;

	if (!sp || (size_t)(sp - s) > 64 || sp == s)
		return false;
	memcpy(rel, s, (size_t)(sp - s));
	rel[sp - s] = 0;
	s = sp + 1;
	for (g = 0; g < groups; g++) {
		if (!skip_group(&s))
			return false;
		if (*s == ' ')
			s++;
	}
	n = strlen(s);
	if (n == 0 || n > 64)
		return false;
	memcpy(ver, s, n + 1);
	return true;
}

/*
 * Since 6.1 init/version.c keeps a weak linux_banner built before the
 * link, whose UTS_VERSION is a bare "# SMP " (init/version-timestamp.c has
 * the real one, init_uts_ns.name.version's): both are in the kernel's file
 * and in its memory, the weak one first.
 */
bool hib_banner_built(const char *ver)
{
	return ver[0] == '#' && ver[1] >= '0' && ver[1] <= '9';
}
