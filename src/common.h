/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef HIBIMG_COMMON_H
#define HIBIMG_COMMON_H

#include <stdint.h>
#include <stdio.h>
#include <stdarg.h>
#include <hibimg.h>

/* Exit statuses, documented in hibimg(1). */
#define EXIT_INTACT      0
#define EXIT_DAMAGED     1
#define EXIT_USAGE       2   /* bad usage, or an area we cannot interpret */
#define EXIT_IOERR       3   /* read/write error, out of memory */
#define EXIT_ENCRYPTED   4   /* verify: encrypted uswsusp image, structure intact,
				content not verifiable without the key */
#define EXIT_PARTIAL     5   /* --partial: damage found, what it spared written */
#define EXIT_NOLOG       6   /* dmesg: the image reads, no log found in it */

struct cmd {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *summary;
};

void warnx_(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void die_(int status, const char *fmt, ...) __attribute__((format(printf, 2, 3), noreturn));
void errtryhelp(const char *cmd) __attribute__((noreturn));
int rc_to_exit(int rc);
/* The status of a command that took several inputs: the worst of theirs,
 * in the order 0 intact < 4 encrypted < 1 damaged < 2 usage or unsupported
 * < 3 I/O error (hibimg(1), EXIT STATUS). */
int exit_worst(int a, int b);
/* A status as a record's "status" says it: "intact", "damaged", ... */
const char *exit_name(int status);
/* Opens spec into a new handle; on failure prints why and exits. "-" is
 * refused by name: the command needs a file or a device. */
struct hib_image *open_image(const char *spec, uint64_t resume_offset);
/* open_image() where "-" reads standard input: commands that read the
 * stream once (input.h). */
struct hib_image *open_input(const char *spec, uint64_t resume_offset);
uint64_t parse_u64(const char *s, const char *what);
/* An output under libhibimg's rules (hibimg(1), "Outputs"): a refusal or an
 * error prints why and exits. close_output() completes it when ok, discards
 * it otherwise, and exits on an error. */
struct hib_output *open_output(struct hib_image *img, const char *path,
			       unsigned int flags);
void close_output(struct hib_image *img, struct hib_output *o, int ok);
void write_output(struct hib_image *img, struct hib_output *o, const void *buf,
		  size_t len, uint64_t off);
void print_version(void) __attribute__((noreturn));
void format_uuid(const unsigned char u[16], char out[37]);
const char *flags_string(uint32_t flags, char *buf, size_t cap);
/* n bytes as 2n lowercase hex digits and a NUL */
void hex_string(char *out, const unsigned char *p, size_t n);
/* "A,B,0x40": flags by name, unknown bits in hex */
const char *names_string(uint32_t flags, const char *(*name)(uint32_t),
			 char *buf, size_t cap);

#define USAGE_FORCE_OPTION \
	" -f, --force                replace an existing output file\n"
#define USAGE_DEVICE_OPTION \
	"     --device               the output is a block device, written in place\n"

#define USAGE_HELP_OPTIONS \
	" -h, --help                 display this help\n" \
	" -V, --version              display version\n"

int cmd_info(int argc, char **argv);
int cmd_verify(int argc, char **argv);
int cmd_dump(int argc, char **argv);
int cmd_recompress(int argc, char **argv);
int cmd_stats(int argc, char **argv);
int cmd_simulate(int argc, char **argv);
int cmd_export(int argc, char **argv);
int cmd_cat(int argc, char **argv);
int cmd_check(int argc, char **argv);
int cmd_find(int argc, char **argv);
int cmd_explain(int argc, char **argv);
int cmd_dmesg(int argc, char **argv);

#endif
