/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * hibimg check - will this kernel on this machine resume the image, and if
 * not, what will it print? The checks the kernel makes, in its order, and
 * one verdict.
 */
#include "config.h"
#include "common.h"
#include "options.h"
#include "progress.h"

#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* hibimg-check(1): 0 will resume, 1 will not, 2 usage, 3 I/O, 4 cannot tell */
#define EXIT_WILL_RESUME  0
#define EXIT_WILL_NOT     1
#define EXIT_CANNOT_TELL  4

/* --config has no letter: simulate's -c is --compare */
enum { OPT_FACS = OPT_LONG, OPT_HERE, OPT_CONFIG, OPT_EFIVAR, OPT_OSREL, OPT_SYSROOT, OPT_CPUS };

static const struct cli_opt check_opts[] = {
	{ "kernel", required_argument, 'k', "<file>",
	  "the kernel that will boot: vmlinuz/bzImage, arm64\nImage or Image.gz, vmlinux" },
	{ "config", required_argument, OPT_CONFIG, "<file>", "its configuration (/boot/config-*)" },
	{ "memmap", required_argument, 'm', "<dir>",
	  "a copy of the machine's /sys/firmware/memmap" },
	{ "iomem",  required_argument, 'i', "<file>",
	  "a copy of the machine's /proc/iomem (where there\nis no firmware memmap: arm64, riscv)" },
	{ "facs",   required_argument, OPT_FACS, "<file>",
	  "the machine's /sys/firmware/acpi/tables/FACS" },
	{ "cpus",   required_argument, OPT_CPUS, "<mpidr,...>",
	  "the CPUs the kernel will know (arm64 MPIDRs,\nriscv64 hart IDs: the device tree's cpu reg\nvalues, 0x0,0x1,...)" },
	{ "efivar", required_argument, OPT_EFIVAR, "<file>",
	  "systemd's HibernateLocation, as efivarfs gives it" },
	{ "os-release", required_argument, OPT_OSREL, "<file>",
	  "the booted system's os-release (systemd reads\n/etc/os-release in an initrd too), which it\ncompares with HibernateLocation" },
	{ "here",   no_argument,       OPT_HERE, NULL,
	  "this machine and its running kernel, for what the\noptions above do not give" },
	{ "sysroot", required_argument, OPT_SYSROOT, "<dir>",
	  "--here for the machine whose /proc, /sys, /boot\nand /etc are copied under dir" },
	{ NULL, 0, 0, NULL, NULL }
};

/* The target's files, in the order they are set (--here fills only what
 * they left). One that cannot be used is said, and its checks cannot tell. */
static const struct {
	int opt;
	const char *name;
	int (*set)(struct hib_target *, const char *);
} inputs[] = {
	{ 'k',        "--kernel",     hib_target_set_kernel },
	{ OPT_CONFIG, "--config",     hib_target_set_config },
	{ 'm',        "--memmap",     hib_target_set_memmap },
	{ 'i',        "--iomem",      hib_target_set_iomem },
	{ OPT_FACS,   "--facs",       hib_target_set_facs },
	{ OPT_EFIVAR, "--efivar",     hib_target_set_efivar },
	{ OPT_CPUS,   "--cpus",       hib_target_set_cpus },
	{ OPT_OSREL,  "--os-release", hib_target_set_os_release },
};
#define N_INPUTS (sizeof(inputs) / sizeof(inputs[0]))

static size_t input_of(int opt)
{
	size_t k;

	for (k = 0; k < N_INPUTS && inputs[k].opt != opt; k++)
		;
	return k;
}

static struct libscols_table *check_table(const struct out_opts *o)
{
	struct libscols_table *tb = out_table_new(o, "checks");

	out_table_col(tb, "CHECK", OUT_STR);
	out_table_col(tb, "RESULT", OUT_STR);
	out_table_col_flags(tb, "DETAIL", OUT_STR, OUT_COL_WRAP);
	out_table_col_flags(tb, "KERNEL-MESSAGE", OUT_STR, OUT_COL_WRAP);
	out_table_col_flags(tb, "MISSING", OUT_STR, OUT_COL_EXTRA);
	out_table_col_flags(tb, "DECIDES", OUT_BOOL, OUT_COL_EXTRA);
	return tb;
}

static int print_checks(const struct hib_check_result *res, const struct out_opts *o)
{
	struct libscols_table *tb = check_table(o);
	size_t i;

	for (i = 0; i < hib_check_count(res); i++) {
		const struct hib_check_item *it = hib_check_get(res, i);
		struct libscols_line *ln = out_table_line(tb);

		out_cell(ln, 0, "%s", it->name);
		out_cell(ln, 1, "%s", hib_check_status_name(it->status));
		out_cell(ln, 2, "%s", it->detail);
		out_cell(ln, 3, "%s", it->message ? it->message : "");
		out_cell(ln, 4, "%s", it->status == HIB_CHECK_UNKNOWN && it->missing ? it->missing : "");
		out_cell(ln, 5, "%s", it->decides ? "true" : "false");
	}
	return out_table_print(tb);
}

/* A fact not known is JSON's null: OUT_NUM with no value prints as null,
 * and as nothing for people. */
static void add_str(struct out_rec *r, const char *key, const char *label, const char *v)
{
	if (v && *v)
		out_rec_add(r, key, label, OUT_STR, "%s", v);
	else
		out_rec_add(r, key, label, OUT_NUM, "%s", "");
}

static void add_num(struct out_rec *r, const char *key, const char *label,
		    enum out_type t, int known, uint64_t v)
{
	if (known)
		out_rec_add(r, key, label, t, t == OUT_HEX ? "0x%08" PRIx64 : "%" PRIu64, v);
	else
		out_rec_add(r, key, label, OUT_NUM, "%s", "");
}

/* "0x0,0x1,...", cut with "..." where the list is long */
static void cpus_text(const struct hib_target *t, char *buf, size_t cap)
{
	size_t n, i, len = 0;
	const uint64_t *c = hib_target_cpus(t, &n);

	buf[0] = 0;
	for (i = 0; c && i < n; i++) {
		if (len + 24 >= cap) {
			snprintf(buf + len, cap - len, ",...");
			return;
		}
		len += (size_t)snprintf(buf + len, cap - len, "%s0x%" PRIx64, i ? "," : "", c[i]);
	}
}

/* target_*: the keys say whose release, arch or page size it is, since
 * info's release and arch are the image's (doc/json.md, one key one
 * meaning) */
static struct out_rec *target_rec(const struct hib_target *t)
{
	const struct hib_target_info *in = hib_target_info(t);
	struct out_rec *r = out_rec_new();
	char problems[2048] = "", cpus[1024];
	size_t i, len = 0;
	const char *p;

	out_rec_section(r, "Target kernel");
	add_str(r, "target-release", "release", in->release);
	add_str(r, "target-build", "build string (uname -v)", in->version);
	add_str(r, "target-kernel-from", "version from", in->kernel_from);
	add_str(r, "target-kernel-file", "kernel file", in->kernel_format);
	add_str(r, "target-arch", "architecture",
		in->arch == HIB_TARCH_UNKNOWN ? NULL : hib_tarch_name(in->arch));
	add_num(r, "target-page-size", "page size", OUT_NUM, in->page_size != 0, in->page_size);
	add_str(r, "target-config-from", "config from", in->config_from);
	add_str(r, "target-os-id", "os-release ID", in->have_os_release ? in->os_id : NULL);
	add_str(r, "target-os-image-id", "os-release IMAGE_ID",
		in->have_os_release ? in->os_image_id : NULL);
	out_rec_section(r, "Target machine");
	add_str(r, "target-memory-from", "memory map from", in->mem_from);
	add_num(r, "target-memory-ranges", "ranges", OUT_NUM, in->mem_from != NULL, in->mem_ranges);
	add_num(r, "target-e820-crc32", "e820 CRC-32", OUT_HEX, in->have_e820, in->e820_crc32);
	add_num(r, "target-physpages", "pages the kernel counts", OUT_NUM, in->physpages != 0,
		in->physpages);
	cpus_text(t, cpus, sizeof(cpus));
	add_str(r, "target-cpus", "CPUs (MPIDR or hart ID)", cpus);
	add_str(r, "target-cpus-from", "CPUs from", in->cpus_from);
	add_num(r, "target-hw-signature", "FACS hardware signature", OUT_HEX, in->have_facs,
		in->hw_signature);
	for (i = 0; (p = hib_target_problem(t, i)) && len < sizeof(problems); i++)
		len += (size_t)snprintf(problems + len, sizeof(problems) - len, "%s%s",
					len ? "; " : "", p);
	add_str(r, "target-problems", "inputs not used", problems);
	return r;
}

static struct out_rec *verdict_rec(const struct hib_check_result *res, int status)
{
	struct out_rec *r = out_rec_new();
	const char *msg = hib_check_message(res);

	out_rec_add(r, "verdict", "verdict", OUT_STR, "%s",
		    hib_verdict_name(hib_check_verdict(res)));
	add_str(r, "message", "kernel message", msg);
	out_rec_add(r, "reason", "reason", OUT_STR, "%s", hib_check_reason(res));
	out_rec_add(r, "exit", "exit status", OUT_NUM, "%d", status);
	return r;
}

static void verdict_line(const struct hib_check_result *res)
{
	switch (hib_check_verdict(res)) {
	case HIB_VERDICT_RESUME:
		printf("will resume\n");
		break;
	case HIB_VERDICT_NO_RESUME:
		if (hib_check_message(res))
			printf("will not resume: %s\n", hib_check_message(res));
		else
			printf("will not resume (the kernel says nothing): %s\n", hib_check_reason(res));
		break;
	case HIB_VERDICT_UNKNOWN:
		printf("cannot tell: %s\n", hib_check_reason(res));
		break;
	}
}

int cmd_check(int argc, char **argv)
{
	struct cli cl = {
		.cmd = "check",
		.synopsis = "[options] <spec>",
		.about = "Predict whether a kernel on a machine resumes the image, and if not, the\n"
			 "line it prints: the checks the kernel makes before it restores, in its\n"
			 "order (signature, header flags, arch record, memory size, PFNs, chunks,\n"
			 "CRC), against the kernel and machine the options describe.",
		.sections = "A check that lacks its input says so; the verdict is then \"cannot tell\".\n"
			    "What happens after the image is loaded (drivers' restore callbacks) is\n"
			    "not predicted.\n",
		.epilog = "Exit status: 0 will resume, 1 will not, 2 usage error or unsupported area,\n"
			  "3 I/O error, 4 cannot tell.\n",
		.common = CO_VIEW | CO_QUIET | CO_VERBOSE | CO_THREADS | CO_RESUME,
		.own = check_opts,
	};
	struct hib_check_opts co = HIB_INIT(struct hib_check_opts);
	const char *arg[N_INPUTS] = { NULL }, *root = "/";
	size_t k;
	struct hib_check_result *res = NULL;
	struct hib_target *t;
	struct hib_image *img;
	struct out_rec *vr, *tr;
	char *spec = NULL;
	uint64_t offset;
	int c, rc, here = 0, status;

	while ((c = cli_getopt(&cl, argc, argv)) != -1) {
		switch (c) {
		case OPT_HERE: here = 1; break;
		case OPT_SYSROOT: here = 1; root = optarg; break;
		default:
			if ((k = input_of(c)) < N_INPUTS)
				arg[k] = optarg;
			break;
		}
	}
	if (cl.out.list_columns)
		return out_table_print(check_table(&cl.out)) ? EXIT_IOERR : EXIT_INTACT;
	offset = cl.resume_offset;
	if (optind + 1 < argc || (optind == argc && !here)) {
		warnx_(optind == argc ? "no image given" : "too many arguments");
		errtryhelp("check");
	}
	if (optind == argc && strcmp(root, "/")) {
		warnx_("no image given (--sysroot does not find that machine's resume area)");
		errtryhelp("check");
	}
	if (arg[input_of('m')] && arg[input_of('i')])
		die_(EXIT_USAGE, "--memmap and --iomem exclude each other");

	t = hib_target_new();
	if (!t)
		die_(EXIT_IOERR, "out of memory");
	for (k = 0; k < N_INPUTS; k++)
		if (arg[k] && inputs[k].set(t, arg[k]))
			warnx_("%s: %s", inputs[k].name, hib_target_error(t));
	if (here && hib_target_set_here(t, root))
		die_(EXIT_IOERR, "%s: %s", strcmp(root, "/") ? "--sysroot" : "--here",
		     hib_target_error(t));
	/* --here: the boot's resume_offset (command line, else sysfs) is where
	 * it looks, on the spec as on the area it names, unless -R says */
	if (here && !cl.resume_offset_set && hib_target_info(t)->have_resume_offset)
		offset = hib_target_info(t)->resume_offset;
	if (optind < argc) {
		spec = strdup(argv[optind]);
	} else {
		/* --here without a spec: the area this boot resumes from */
		const struct hib_target_info *in = hib_target_info(t);

		if (!in->resume_path[0] && in->resume[0])
			die_(EXIT_USAGE, "no spec given, /sys/power/resume names no area and resume=%s names no device here",
			     in->resume);
		if (!in->resume_path[0])
			die_(EXIT_USAGE, "no spec given, and neither /sys/power/resume nor resume= names an area");
		spec = strdup(in->resume_path);
	}
	if (!spec)
		die_(EXIT_IOERR, "out of memory");

	img = open_image(spec, offset);
	co.threads = cl.threads;
	progress_begin("checking", "pages", cl.quiet);
	hib_image_set_progress(img, progress_keep, NULL);
	rc = hib_check(img, t, &co, &res);
	progress_end();
	if (rc)
		die_(rc_to_exit(rc), "%s", hib_image_error(img));
	status = hib_check_verdict(res) == HIB_VERDICT_RESUME ? EXIT_WILL_RESUME :
		 hib_check_verdict(res) == HIB_VERDICT_NO_RESUME ? EXIT_WILL_NOT :
		 EXIT_CANNOT_TELL;
	if (!cl.quiet) {
		vr = verdict_rec(res, status);
		tr = target_rec(t);
		out_doc_begin(&cl.out, "check");
		if (cl.out.json)
			rc = out_rec_print(vr, &cl.out, NULL) | out_rec_print(tr, &cl.out, "target");
		else if (cl.verbose && !cl.out.raw && !cl.out.pairs)
			rc = out_rec_print(tr, &cl.out, "target") | (putchar('\n') == EOF);
		rc |= print_checks(res, &cl.out);
		rc |= out_doc_end();
		if (!cl.out.json && !cl.out.raw && !cl.out.pairs)
			verdict_line(res);
		out_rec_free(vr);
		out_rec_free(tr);
		if (rc)
			die_(EXIT_IOERR, "cannot print the result");
	}
	hib_check_free(res);
	hib_image_free(img);
	hib_target_free(t);
	free(spec);
	return status;
}
