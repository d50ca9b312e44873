/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * input.c - opening a command's input (see input.h).
 */
#include "config.h"
#include "common.h"
#include "input.h"
#include "options.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#ifndef O_TMPFILE
#define O_TMPFILE (020000000 | O_DIRECTORY)
#endif

#define SPOOL_CHUNK (1u << 20)

/* The message of the last input_open() that failed, and its handle. */
static struct {
	const struct hib_image *img;
	char msg[2048];
} last;

static int failed(const struct hib_image *img, int rc, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static int failed(const struct hib_image *img, int rc, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(last.msg, sizeof(last.msg), fmt, ap);
	va_end(ap);
	last.img = img;
	return rc;
}

/* The one text that tells a user a refused spent area can still be read:
 * added wherever such an area is refused, by a command that takes
 * --spent and was not given it. */
#define SPENT_HINT " (--spent reads what is left)"

const char *input_error(const struct hib_image *img)
{
	static char buf[2048 + sizeof(SPENT_HINT)];
	const struct hib_header *h;

	if (img == last.img)
		return last.msg;
	h = hib_image_header(img);
	if (cli_spent == 0 && h && h->kind == HIB_KIND_SPENT) {
		snprintf(buf, sizeof(buf), "%s" SPENT_HINT, hib_image_error(img));
		return buf;
	}
	if (*input_hint(img)) {
		snprintf(buf, sizeof(buf), "%s: %s", hib_image_error(img), input_hint(img));
		return buf;
	}
	return hib_image_error(img);
}

static const char *shell_word(const char *s, char *buf, size_t cap);

const char *input_hint(const struct hib_image *img)
{
	static char hint[1024];
	const struct hib_header *h = hib_image_header(img);
	char q[512];
	const char *w;

	if (!h || h->kind != HIB_KIND_UNKNOWN || !hib_image_fs_type(img))
		return "";
	w = shell_word(hib_image_path(img), q, sizeof(q));
	snprintf(hint, sizeof(hint),
		 "'hibimg find %s' lists the resume pages on it and their resume_offset; then 'hibimg %s -R <resume_offset> %s'",
		 w, cli_command ? cli_command : "info", w);
	return hint;
}

/* A path as a shell reads it back: bare when it is plain, else quoted. */
static const char *shell_word(const char *s, char *buf, size_t cap)
{
	size_t n = 0;

	if (*s && strspn(s, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
			    "0123456789-_./+,:@%=") == strlen(s))
		return s;
	if (cap < 3)
		return s;
	buf[n++] = '\'';
	for (; *s && n + 6 < cap; s++) {
		if (*s == '\'') {
			memcpy(buf + n, "'\\''", 4);
			n += 4;
		} else {
			buf[n++] = *s;
		}
	}
	buf[n++] = '\'';
	buf[n] = 0;
	return buf;
}

/* What the user can do with a compressed input: decompress it, or pipe
 * it where this command reads "-". The library knows the compressor, not
 * the command, so the hint is made here. */
static int compressed_hint(const struct hib_image *img, int rc, const char *spec,
			   unsigned int flags)
{
	const char *z = hib_image_compressor(img);
	char q[1024];
	const char *w;

	if (!strcmp(spec, "-"))
		return failed(img, rc, "standard input is %s-compressed: decompress it on the way (... | %s -dc | hibimg %s -)",
			      z, z, cli_command);
	w = shell_word(spec, q, sizeof(q));
	if (flags & INPUT_STDIN)
		return failed(img, rc, "%s: %s-compressed file: decompress it first (%s -d %s), or pipe it: %s -dc %s | hibimg %s -",
			      spec, z, z, w, z, w, cli_command);
	return failed(img, rc, "%s: %s-compressed file: decompress it first (%s -d %s)",
		      spec, z, z, w);
}

static int spool_error(const struct hib_image *img, int fd, const char *dir,
		       const char *what)
{
	int e = errno;

	if (fd >= 0)
		close(fd);
	return failed(img, HIB_ERR_IO, "standard input: %s %s: %s (a stream read from '-' is first copied there whole, so it needs as much free space as the image; TMPDIR chooses the directory)",
		      what, dir, strerror(e));
}

/* A pipe cannot be read at offsets: copy it into a file that has no name,
 * so that nothing is left behind however the process ends. Not an output
 * (hib_output_open()): nobody asked for it, and no name is ever given. */
static int spool(const struct hib_image *img, int *out)
{
	const char *dir = getenv("TMPDIR");
	char *buf, tmpl[4096];
	int fd;

	/* not /tmp: often memory-backed, and an image can be as large as RAM */
	if (!dir || !*dir)
		dir = "/var/tmp";
	fd = open(dir, O_TMPFILE | O_RDWR | O_EXCL | O_CLOEXEC, 0600);
	if (fd < 0 && (errno == EOPNOTSUPP || errno == EISDIR || errno == EINVAL)) {
		/* no O_TMPFILE on that file system: a name, removed at once */
		snprintf(tmpl, sizeof(tmpl), "%s/hibimg-stdin.XXXXXX", dir);
		fd = mkostemp(tmpl, O_CLOEXEC);
		if (fd >= 0)
			unlink(tmpl);
	}
	if (fd < 0)
		return spool_error(img, fd, dir, "cannot create a temporary file in");
	buf = malloc(SPOOL_CHUNK);
	if (!buf) {
		close(fd);
		return failed(img, HIB_ERR_NOMEM, "out of memory");
	}
	for (;;) {
		ssize_t n = read(STDIN_FILENO, buf, SPOOL_CHUNK), done = 0;

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			int e = errno;

			free(buf);
			close(fd);
			return failed(img, HIB_ERR_IO, "cannot read standard input: %s", strerror(e));
		}
		if (n == 0)
			break;
		while (done < n) {
			ssize_t w = write(fd, buf + done, (size_t)(n - done));

			if (w < 0 && errno == EINTR)
				continue;
			if (w < 0) {
				int e = errno;

				free(buf);
				errno = e;
				return spool_error(img, fd, dir,
						   "cannot copy it into a temporary file in");
			}
			done += w;
		}
	}
	free(buf);
	*out = fd;
	return HIB_OK;
}

static int open_stdin(struct hib_image *img)
{
	struct stat st;
	int fd, rc;

	if (fstat(STDIN_FILENO, &st) < 0)
		return failed(img, HIB_ERR_IO, "standard input: %s", strerror(errno));
	if (isatty(STDIN_FILENO))
		return failed(img, HIB_ERR_INVAL, "standard input is a terminal: pipe an image into it (zstd -dc IMG.zst | hibimg %s -)",
			      cli_command);
	/* A file or device redirected with '<' is read where it is. */
	if (S_ISREG(st.st_mode) || S_ISBLK(st.st_mode))
		return hib_image_open_fd(img, STDIN_FILENO, "-");
	rc = spool(img, &fd);
	if (rc)
		return rc;
	rc = hib_image_open_fd(img, fd, "-");
	close(fd);
	return rc;
}

int input_open(struct hib_image *img, const char *spec, unsigned int flags)
{
	int rc;

	if (last.img == img)
		last.img = NULL;
	if (!strcmp(spec, "-") && !(flags & INPUT_STDIN))
		return failed(img, HIB_ERR_INVAL, "reading standard input is not supported here: %s needs a file or a device (verify, stats, export -F raw|lime and cat read a stream from '-'); a file named '-' is ./-",
			      cli_command);
	rc = strcmp(spec, "-") ? hib_image_open(img, spec) : open_stdin(img);
	if (rc && hib_image_compressor(img))
		return compressed_hint(img, rc, spec, flags);
	/* --spent means one thing in every command that takes it */
	if (rc == HIB_OK && cli_spent == 1)
		(void)hib_image_allow_spent(img, 1);
	return rc;
}
