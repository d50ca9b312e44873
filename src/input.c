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
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#ifndef O_TMPFILE
#define O_TMPFILE (020000000 | O_DIRECTORY)
#endif

#define SPOOL_CHUNK (1u << 20)

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
static void compressed_hint(const struct hib_image *img, const char *spec,
			    unsigned int flags, char *msg, size_t cap)
{
	const char *z = hib_image_compressor(img);
	char q[1024];
	const char *w;

	if (!strcmp(spec, "-")) {
		snprintf(msg, cap, "standard input is %s-compressed: decompress it on the way (... | %s -dc | hibimg %s -)",
			 z, z, cli_command);
		return;
	}
	w = shell_word(spec, q, sizeof(q));
	if (flags & INPUT_STDIN)
		snprintf(msg, cap, "%s: %s-compressed file: decompress it first (%s -d %s), or pipe it: %s -dc %s | hibimg %s -",
			 spec, z, z, w, z, w, cli_command);
	else
		snprintf(msg, cap, "%s: %s-compressed file: decompress it first (%s -d %s)",
			 spec, z, z, w);
}

static int spool_error(int fd, const char *dir, const char *what, char *msg, size_t cap)
{
	int e = errno;

	if (fd >= 0)
		close(fd);
	snprintf(msg, cap, "standard input: %s %s: %s (a stream read from '-' is first copied there whole, so it needs as much free space as the image; TMPDIR chooses the directory)",
		 what, dir, strerror(e));
	return EXIT_IOERR;
}

/* A pipe cannot be read at offsets: copy it into a file that has no name,
 * so that nothing is left behind however the process ends. Not an output
 * (hib_output_open()): nobody asked for it, and no name is ever given. */
static int spool(int *out, char *msg, size_t cap)
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
		return spool_error(fd, dir, "cannot create a temporary file in", msg, cap);
	buf = malloc(SPOOL_CHUNK);
	if (!buf) {
		close(fd);
		snprintf(msg, cap, "out of memory");
		return EXIT_IOERR;
	}
	for (;;) {
		ssize_t n = read(STDIN_FILENO, buf, SPOOL_CHUNK), done = 0;

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			int e = errno;

			free(buf);
			close(fd);
			snprintf(msg, cap, "cannot read standard input: %s", strerror(e));
			return EXIT_IOERR;
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
				return spool_error(fd, dir, "cannot copy it into a temporary file in",
						   msg, cap);
			}
			done += w;
		}
	}
	free(buf);
	*out = fd;
	return 0;
}

static int open_stdin(struct hib_image *img, char *msg, size_t cap)
{
	struct stat st;
	int fd, rc, status;

	if (fstat(STDIN_FILENO, &st) < 0) {
		snprintf(msg, cap, "standard input: %s", strerror(errno));
		return EXIT_IOERR;
	}
	if (isatty(STDIN_FILENO)) {
		snprintf(msg, cap, "standard input is a terminal: pipe an image into it (zstd -dc IMG.zst | hibimg %s -)",
			 cli_command);
		return EXIT_USAGE;
	}
	/* A file or device redirected with '<' is read where it is. */
	if (S_ISREG(st.st_mode) || S_ISBLK(st.st_mode)) {
		rc = hib_image_open_fd(img, STDIN_FILENO, "-");
	} else {
		status = spool(&fd, msg, cap);
		if (status)
			return status;
		rc = hib_image_open_fd(img, fd, "-");
		close(fd);
	}
	if (rc && !hib_image_compressor(img))
		snprintf(msg, cap, "%s", hib_image_error(img));
	return rc ? rc_to_exit(rc) : 0;
}

int input_open(struct hib_image *img, const char *spec, unsigned int flags,
	       char *msg, size_t cap)
{
	int rc;

	msg[0] = 0;
	if (!strcmp(spec, "-")) {
		if (!(flags & INPUT_STDIN)) {
			snprintf(msg, cap, "reading standard input is not supported here: %s needs a file or a device (verify, stats, export -F raw|lime and cat read a stream from '-'); a file named '-' is ./-",
				 cli_command);
			return EXIT_USAGE;
		}
		rc = open_stdin(img, msg, cap);
		if (rc && hib_image_compressor(img))
			compressed_hint(img, spec, flags, msg, cap);
		return rc;
	}
	rc = hib_image_open(img, spec);
	if (!rc)
		return 0;
	if (hib_image_compressor(img))
		compressed_hint(img, spec, flags, msg, cap);
	else
		snprintf(msg, cap, "%s", hib_image_error(img));
	return rc_to_exit(rc);
}
