/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * allocpeak - an LD_PRELOAD interposer that counts the heap a process
 * holds at its peak (issue 17: memory stays bounded at 64K pages).
 *
 *   HIBIMG_ALLOC_LOG=FILE   at exit, "peak N" (bytes live at the peak,
 *                           as asked of malloc, calloc, realloc,
 *                           posix_memalign, aligned_alloc) goes to FILE
 *
 * Bytes asked for, not pages touched: a buffer sized from a chunk counts
 * whole, so a test can hold the library to a bound computed from the
 * layout without timing anything. glibc only (__libc_malloc and friends,
 * malloc_usable_size for what free gives back).
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

extern void *__libc_malloc(size_t);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);
extern void *__libc_memalign(size_t, size_t);
extern void __libc_free(void *);

static size_t live, peak;

static void add(void *p)
{
	size_t n, now;

	if (!p)
		return;
	n = malloc_usable_size(p);
	now = __atomic_add_fetch(&live, n, __ATOMIC_RELAXED);
	for (size_t pk = __atomic_load_n(&peak, __ATOMIC_RELAXED); now > pk;)
		if (__atomic_compare_exchange_n(&peak, &pk, now, 0, __ATOMIC_RELAXED,
						__ATOMIC_RELAXED))
			break;
}

static void sub(void *p)
{
	if (p)
		__atomic_sub_fetch(&live, malloc_usable_size(p), __ATOMIC_RELAXED);
}

void *malloc(size_t n)
{
	void *p = __libc_malloc(n);

	add(p);
	return p;
}

void *calloc(size_t a, size_t b)
{
	void *p = __libc_calloc(a, b);

	add(p);
	return p;
}

void *realloc(void *old, size_t n)
{
	void *p;

	sub(old);
	p = __libc_realloc(old, n);
	if (p)
		add(p);
	else if (old && n)
		add(old);           /* failed: the old block stays */
	return p;
}

int posix_memalign(void **out, size_t align, size_t n)
{
	void *p = __libc_memalign(align, n);

	if (!p)
		return 12;          /* ENOMEM */
	add(p);
	*out = p;
	return 0;
}

void *memalign(size_t align, size_t n)
{
	void *p = __libc_memalign(align, n);

	add(p);
	return p;
}

void *aligned_alloc(size_t align, size_t n)
{
	return memalign(align, n);
}

void free(void *p)
{
	sub(p);
	__libc_free(p);
}

__attribute__((destructor)) static void report(void)
{
	const char *f = getenv("HIBIMG_ALLOC_LOG");
	char line[64];
	int fd, n;

	if (!f)
		return;
	fd = open(f, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	if (fd < 0)
		return;
	n = snprintf(line, sizeof(line), "peak %zu\n", peak);
	if (write(fd, line, (size_t)n) != n)
		n = 0;
	close(fd);
}
