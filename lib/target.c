/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * target.c - the handle for the kernel and machine that will boot and read
 * an image: its error, the inputs that could not be used, bounded reads of
 * the files its parsers take.
 */
#include "targetP.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

struct hib_target *hib_target_new(void)
{
	struct hib_target *t = calloc(1, sizeof(*t));

	if (t) {
		t->info.lockdown = -1;
		t->info.efi_dev = -1;
	}
	return t;
}

void hib_target_free(struct hib_target *t)
{
	size_t i;

	if (!t)
		return;
	free(t->mem);
	free(t->types);
	free(t->config);
	free(t->cpus);
	for (i = 0; i < t->n_problems; i++)
		free(t->problems[i]);
	free(t);
}

const char *hib_target_error(const struct hib_target *t)
{
	return t->err[0] ? t->err : "no error";
}

int hib_tgt_seterr(struct hib_target *t, int code, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(t->err, sizeof(t->err), fmt, ap);
	va_end(ap);
	return code;
}

void hib_tgt_problem(struct hib_target *t, enum hib_tin which)
{
	char *p;

	memcpy(t->why[which], t->err, sizeof(t->why[which]) - 1);
	t->why[which][sizeof(t->why[which]) - 1] = 0;
	if (t->n_problems == HIB_TGT_PROBLEMS)
		return;
	p = strdup(t->err);
	if (p)
		t->problems[t->n_problems++] = p;
}

const char *hib_target_problem(const struct hib_target *t, size_t i)
{
	return i < t->n_problems ? t->problems[i] : NULL;
}

const struct hib_target_info *hib_target_info(const struct hib_target *t)
{
	return &t->info;
}

const struct hib_mem_range *hib_target_mem_range(const struct hib_target *t, size_t i)
{
	return i < t->n_mem ? &t->mem[i] : NULL;
}

const char *hib_tarch_name(enum hib_tarch a)
{
	switch (a) {
	case HIB_TARCH_X86_64:  return "x86_64";
	case HIB_TARCH_I386:    return "i386";
	case HIB_TARCH_ARM64:   return "arm64";
	case HIB_TARCH_RISCV64: return "riscv64";
	case HIB_TARCH_UNKNOWN: break;
	}
	return "unknown";
}

unsigned int hib_kver_parse(const char *release)
{
	unsigned long a, b, c = 0;
	char *end;

	if (!release || release[0] < '0' || release[0] > '9')
		return 0;
	a = strtoul(release, &end, 10);
	if (*end != '.' || end[1] < '0' || end[1] > '9' || a > 255)
		return 0;
	b = strtoul(end + 1, &end, 10);
	if (b > 255)
		return 0;
	if (*end == '.' && end[1] >= '0' && end[1] <= '9')
		c = strtoul(end + 1, &end, 10);
	return HIB_KVER(a, b, c);
}

/*
 * sysfs and procfs files report a size of 0 or 4096 whatever they hold,
 * so the size is learnt by reading, never from stat; max bounds it.
 */
int hib_tgt_slurp(struct hib_target *t, const char *path, size_t max,
		  unsigned char **buf, size_t *len)
{
	size_t cap = 4096, n = 0;
	unsigned char *b;
	struct stat st;
	int fd;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return hib_tgt_seterr(t, HIB_ERR_IO, "%s: %s", path, strerror(errno));
	if (fstat(fd, &st) == 0 && S_ISDIR(st.st_mode)) {
		close(fd);
		return hib_tgt_seterr(t, HIB_ERR_INVAL, "%s: a directory, not a file", path);
	}
	if (S_ISREG(st.st_mode) && (uint64_t)st.st_size > max) {
		close(fd);
		return hib_tgt_seterr(t, HIB_ERR_UNSUPPORTED,
				      "%s: %" PRIu64 " bytes, more than the %zu MiB this reads",
				      path, (uint64_t)st.st_size, max >> 20);
	}
	if (S_ISREG(st.st_mode) && (size_t)st.st_size + 1 > cap)
		cap = (size_t)st.st_size + 1;
	b = malloc(cap);
	if (!b) {
		close(fd);
		return hib_tgt_seterr(t, HIB_ERR_NOMEM, "%s: out of memory", path);
	}
	for (;;) {
		ssize_t r;

		if (n + 1 >= cap) {
			unsigned char *nb;

			if (cap > max) {
				free(b);
				close(fd);
				return hib_tgt_seterr(t, HIB_ERR_UNSUPPORTED,
						      "%s: more than the %zu MiB this reads",
						      path, max >> 20);
			}
			nb = realloc(b, cap * 2);
			if (!nb) {
				free(b);
				close(fd);
				return hib_tgt_seterr(t, HIB_ERR_NOMEM, "%s: out of memory", path);
			}
			b = nb;
			cap *= 2;
		}
		r = read(fd, b + n, cap - n - 1);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			int e = errno;

			free(b);
			close(fd);
			return hib_tgt_seterr(t, HIB_ERR_IO, "%s: %s", path, strerror(e));
		}
		if (r == 0)
			break;
		n += (size_t)r;
	}
	close(fd);
	if (n > max) {
		free(b);
		return hib_tgt_seterr(t, HIB_ERR_UNSUPPORTED,
				      "%s: more than the %zu MiB this reads", path, max >> 20);
	}
	b[n] = 0;
	*buf = b;
	*len = n;
	return HIB_OK;
}
