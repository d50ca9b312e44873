/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * hibimg - command dispatch. The CLI is a client of libhibimg's public API
 * and nothing else.
 */
#include "config.h"
#include "common.h"
#include "input.h"
#include "options.h"
#include "output.h"
#include "progress.h"

#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const struct cmd commands[] = {
	{ "info",   cmd_info,   "describe hibernation images and swap areas" },
	{ "verify", cmd_verify, "check an image completely: structure, every chunk, CRC" },
	{ "dump",   cmd_dump,   "print one layer of an image: header, map, chunks, pfns, page" },
	{ "recompress", cmd_recompress, "rewrite an image: LZO, LZ4 or raw, zero pages stored or omitted" },
	{ "stats",  cmd_stats,  "page classes, memory layout and compressibility of an image" },
	{ "simulate", cmd_simulate, "time and size with the zero check on/off and each compressor" },
	{ "export", cmd_export, "write the saved memory as raw, LiME, ELF core or kdump" },
	{ "dmesg",  cmd_dmesg,  "print the hibernated kernel's log from its printk ring buffer" },
	{ "cat",    cmd_cat,    "write saved pages (by PFN or address) or a swap slot" },
	{ "check",  cmd_check,  "will a kernel on a machine resume the image, and if not, why" },
	{ "find",   cmd_find,   "scan a disk or disk image for resume pages and their resume_offset" },
	{ "explain", cmd_explain, "what each hibernation line of a kernel log means, what to check" },
};

/* the JSON error document repeats it: room for a compressed file's hint */
static char last_message[2048];

/* Every message names the command: "hibimg verify: ...". */
static void vmessage(const char *fmt, va_list ap)
{
	va_list aq;

	va_copy(aq, ap);
	vsnprintf(last_message, sizeof(last_message), fmt, aq);
	va_end(aq);
	progress_end();
	fflush(stdout);
	if (cli_command)
		fprintf(stderr, "hibimg %s: ", cli_command);
	else
		fputs("hibimg: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
}

void warnx_(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmessage(fmt, ap);
	va_end(ap);
}

void die_(int status, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmessage(fmt, ap);
	va_end(ap);
	if (cli_json && !out_json_printed)
		out_json_error(cli_command, last_message, status);
	exit(status);
}

void errtryhelp(const char *cmd)
{
	fprintf(stderr, "Try 'hibimg %s%s--help' for more information.\n",
		cmd ? cmd : "", cmd ? " " : "");
	if (cli_json && !out_json_printed)
		out_json_error(cli_command, last_message, EXIT_USAGE);
	exit(EXIT_USAGE);
}

int rc_to_exit(int rc)
{
	switch (rc) {
	case HIB_OK:              return EXIT_INTACT;
	case HIB_ERR_DAMAGED:     return EXIT_DAMAGED;
	case HIB_ERR_UNSUPPORTED:
	case HIB_ERR_INVAL:       return EXIT_USAGE;
	default:                  return EXIT_IOERR;
	}
}

static int severity(int status)
{
	switch (status) {
	case EXIT_INTACT:    return 0;
	case EXIT_ENCRYPTED: return 1;
	case EXIT_PARTIAL:   return 2;
	case EXIT_DAMAGED:   return 3;
	case EXIT_USAGE:     return 4;
	default:             return 5;    /* EXIT_IOERR, and anything unknown */
	}
}

/* An encrypted image is not verified, but nothing is wrong with it: any
 * damage elsewhere says more. */
int exit_worst(int a, int b)
{
	return severity(b) > severity(a) ? b : a;
}

const char *exit_name(int status)
{
	switch (status) {
	case EXIT_INTACT:    return "intact";
	case EXIT_DAMAGED:   return "damaged";
	case EXIT_USAGE:     return "unsupported";
	case EXIT_ENCRYPTED: return "encrypted";
	case EXIT_PARTIAL:   return "partial";
	default:             return "io-error";
	}
}

static struct hib_image *open_spec(const char *spec, uint64_t resume_offset,
				   unsigned int flags)
{
	struct hib_image *img = hib_image_new();
	int rc;

	if (!img)
		die_(EXIT_IOERR, "out of memory");
	if (resume_offset)
		(void)hib_image_set_resume_offset(img, resume_offset);
	rc = input_open(img, spec, flags);
	if (rc)
		die_(rc_to_exit(rc), "%s", input_error(img));
	return img;
}

struct hib_image *open_image(const char *spec, uint64_t resume_offset)
{
	return open_spec(spec, resume_offset, 0);
}

struct hib_image *open_input(const char *spec, uint64_t resume_offset)
{
	return open_spec(spec, resume_offset, INPUT_STDIN);
}

struct hib_output *open_output(struct hib_image *img, const char *path,
			       unsigned int flags)
{
	struct hib_output *o;
	int rc = hib_output_open(img, path, flags, 0, &o);

	if (rc)
		die_(rc_to_exit(rc), "%s", hib_image_error(img));
	return o;
}

void close_output(struct hib_image *img, struct hib_output *o, int ok)
{
	int rc = hib_output_close(o, ok ? HIB_OK : HIB_ERR_INVAL);

	if (ok && rc)
		die_(rc_to_exit(rc), "%s", hib_image_error(img));
}

void write_output(struct hib_image *img, struct hib_output *o, const void *buf,
		  size_t len, uint64_t off)
{
	int rc = hib_output_pwrite(o, buf, len, off);

	if (rc) {
		char msg[512];

		snprintf(msg, sizeof(msg), "%s", hib_image_error(img));
		(void)hib_output_close(o, rc);
		die_(rc_to_exit(rc), "%s", msg);
	}
}

uint64_t parse_u64(const char *s, const char *what)
{
	char *end;
	unsigned long long v;

	errno = 0;
	v = strtoull(s, &end, 0);
	if (errno || end == s || *end || *s == '-')
		die_(EXIT_USAGE, "invalid %s: '%s'", what, s);
	return v;
}

void print_version(void)
{
	printf("hibimg %s (libhibimg %s)\n", PACKAGE_VERSION, hib_version());
	exit(EXIT_SUCCESS);
}

void format_uuid(const unsigned char u[16], char out[37])
{
	snprintf(out, 37,
		 "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x",
		 u[0], u[1], u[2], u[3], u[4], u[5], u[6], u[7], u[8], u[9],
		 u[10], u[11], u[12], u[13], u[14], u[15]);
}

void hex_string(char *out, const unsigned char *p, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		sprintf(out + 2 * i, "%02x", p[i]);
}

const char *flags_string(uint32_t flags, char *buf, size_t cap)
{
	return names_string(flags, hib_flag_name, buf, cap);
}

const char *names_string(uint32_t flags, const char *(*name)(uint32_t),
			 char *buf, size_t cap)
{
	size_t len = 0;
	uint32_t bit;

	buf[0] = 0;
	for (bit = 1; bit; bit <<= 1) {
		const char *n;
		char tmp[16];

		if (!(flags & bit))
			continue;
		n = name(bit);
		if (!n) {
			snprintf(tmp, sizeof(tmp), "0x%x", bit);
			n = tmp;
		}
		len += (size_t)snprintf(buf + len, len < cap ? cap - len : 0, "%s%s",
					len ? "," : "", n);
	}
	return buf;
}

static void __attribute__((noreturn)) usage(void)
{
	size_t i;

	printf("Usage:\n hibimg <command> [options] [<args>]\n\n");
	printf("Read, check and analyse Linux hibernation (swsusp) images offline.\n\n");
	printf("Commands:\n");
	for (i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		printf(" %-11s %s\n", commands[i].name, commands[i].summary);
	printf("\nOptions:\n" USAGE_HELP_OPTIONS);
	printf("\nExit status: 0 intact, 1 damaged, 2 usage error or unsupported area,\n"
	       "3 I/O error, 4 (verify) encrypted image: content not verifiable.\n");
	printf("\nRun 'hibimg <command> --help' for a command's options;\n"
	       "for more details see hibimg(1).\n");
	exit(EXIT_SUCCESS);
}

static void close_stdout(void)
{
	if (fflush(stdout) != 0 || ferror(stdout) || fclose(stdout) != 0) {
		if (errno == EPIPE)
			_exit(EXIT_IOERR);
		fprintf(stderr, "hibimg: write error: %s\n", strerror(errno));
		_exit(EXIT_IOERR);
	}
}

/* An output not yet complete has, at most, a temporary name to remove
 * (none where the file system has O_TMPFILE); then die of the signal. */
static void on_signal(int sig)
{
	hib_output_signal_cleanup();
	signal(sig, SIG_DFL);
	raise(sig);
}

static void cleanup_at_exit(void)
{
	hib_output_signal_cleanup();
}

static void catch_signals(void)
{
	static const int sigs[] = { SIGINT, SIGTERM, SIGHUP, SIGPIPE };
	struct sigaction sa, old;
	size_t i;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	for (i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
		sigaddset(&sa.sa_mask, sigs[i]);
	for (i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++) {
		/* what the caller chose to ignore stays ignored */
		if (sigaction(sigs[i], NULL, &old) == 0 && old.sa_handler == SIG_IGN)
			continue;
		sigaction(sigs[i], &sa, NULL);
	}
}

int main(int argc, char **argv)
{
	size_t i;

	atexit(close_stdout);
	atexit(cleanup_at_exit);
	catch_signals();
	if (argc < 2) {
		warnx_("no command given");
		errtryhelp(NULL);
	}
	if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"))
		usage();
	if (!strcmp(argv[1], "-V") || !strcmp(argv[1], "--version"))
		print_version();
	if (!strcmp(argv[1], "help")) {
		if (argc < 3)
			usage();
		argv[1] = argv[2];
		argv[2] = "--help";
		argc = 3;
	}
	for (i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		if (!strcmp(argv[1], commands[i].name)) {
			cli_command = commands[i].name;
			return commands[i].fn(argc - 1, argv + 1);
		}
	warnx_("unknown command '%s'", argv[1]);
	errtryhelp(NULL);
}
