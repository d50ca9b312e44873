/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * hibimg cat - raw bytes out of an image: saved pages by PFN or physical
 * address, or a swap slot the image does not own.
 */
#include "config.h"
#include "common.h"
#include "input.h"
#include "options.h"
#include "partial.h"
#include "progress.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const struct cli_opt cat_opts[] = {
	{ "pfn",  required_argument, 'p', "<n>[-<m>][,...]",
	  "saved pages n to m (inclusive); several\nascending ranges, comma-separated" },
	{ "phys", required_argument, 'a', "<addr>[+<len>]",
	  "len bytes of physical memory from addr\n(default: to the end of addr's page)" },
	{ "virt", required_argument, OPT_LONG + 0, "<addr>[+<len>]",
	  "len bytes at kernel virtual address addr,\nthrough the kernel's page tables\n(default: to the end of its page)" },
	{ "slot", required_argument, 's', "<n>",
	  "swap slot n, raw: a page of a swap area;\nof a swap file in place, its page n" },
	{ NULL, 0, 0, NULL, NULL }
};

/* Written in order: standard output or a file that appears whole or not
 * at all (a refused range or a damaged stream leaves nothing). */
struct sink {
	struct hib_image *img;
	struct hib_output *out;
	uint64_t pos;
	unsigned int ps;
	uint64_t from, to;          /* byte range wanted, end exclusive */
};

static void write_all(struct sink *s, const unsigned char *p, size_t n)
{
	write_output(s->img, s->out, p, n, s->pos);
	s->pos += n;
}

/* Each page contributes the part of [from, to) that falls inside it. */
static int on_page(uint64_t pfn, const unsigned char *data, void *arg)
{
	struct sink *s = arg;
	uint64_t base = pfn * s->ps, a = base, b = base + s->ps;

	if (a < s->from)
		a = s->from;
	if (b > s->to)
		b = s->to;
	if (a < b)
		write_all(s, data + (a - base), (size_t)(b - a));
	return 0;
}

/* "N" or "N<sep>M" */
static void parse_range(const char *arg, char sep, uint64_t *a, uint64_t *b,
			int *has_b, const char *what)
{
	char *copy = strdup(arg), *p;

	if (!copy)
		die_(EXIT_IOERR, "out of memory");
	p = strchr(copy, sep);
	*has_b = p != NULL;
	if (p)
		*p++ = 0;
	*a = parse_u64(copy, what);
	*b = p ? parse_u64(p, what) : *a;
	free(copy);
}

/* "N[-M][,N[-M]...]": several ranges cost one pass of the stream. */
static struct hib_pfn_range *parse_pfns(const char *arg, size_t *n)
{
	char *copy = strdup(arg), *tok, *save = NULL;
	struct hib_pfn_range *r = NULL;
	size_t cap = 0;
	int has_end;

	if (!copy)
		die_(EXIT_IOERR, "out of memory");
	*n = 0;
	for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		if (*n == cap) {
			cap = cap ? cap * 2 : 16;
			r = realloc(r, cap * sizeof(*r));
			if (!r)
				die_(EXIT_IOERR, "out of memory");
		}
		parse_range(tok, '-', &r[*n].first, &r[*n].last, &has_end, "PFN range");
		if (r[*n].last < r[*n].first)
			die_(EXIT_USAGE, "invalid PFN range '%s': the end is below the start", tok);
		if (*n && r[*n].first <= r[*n - 1].last)
			die_(EXIT_USAGE, "invalid PFN range '%s': ranges must ascend without overlap", tok);
		(*n)++;
	}
	free(copy);
	if (!*n)
		die_(EXIT_USAGE, "invalid PFN range '%s'", arg);
	return r;
}

/* --virt: the page tables say where each page is; one checked pass of
 * the stream first (hib_kmem_open()), then one chunk per page read. */
static int cat_virt(struct sink *s, const char *arg)
{
	struct hib_kmem *km;
	unsigned char *buf;
	uint64_t addr, len;
	int has_len, rc;

	parse_range(arg, '+', &addr, &len, &has_len, "virtual address");
	if (!has_len)
		len = s->ps - addr % s->ps;
	if (!len || addr + len < addr)
		die_(EXIT_USAGE, "invalid length in '%s'", arg);
	rc = hib_image_load(s->img);
	if (rc == HIB_OK)
		rc = hib_kmem_open(s->img, &km);
	if (rc)
		return rc;
	buf = malloc(s->ps);
	if (!buf)
		die_(EXIT_IOERR, "out of memory");
	while (len && rc == HIB_OK) {
		size_t n = s->ps - addr % s->ps;

		if (n > len)
			n = (size_t)len;
		rc = hib_kmem_read_virt(km, addr, buf, n);
		if (rc == HIB_OK)
			write_all(s, buf, n);
		addr += n;
		len -= n;
	}
	free(buf);
	hib_kmem_free(km);
	return rc;
}

int cmd_cat(int argc, char **argv)
{
	struct cli cl = {
		.cmd = "cat",
		.synopsis = "[options] <spec> --pfn <n>[-<m>][,...]\n"
			    " hibimg cat [options] <spec> --phys <addr>[+<len>]\n"
			    " hibimg cat [options] <spec> --virt <addr>[+<len>]\n"
			    " hibimg cat [options] <spec> --slot <n>",
		.about = "Write raw bytes of a hibernation image to standard output or a file:\n"
			 "saved pages by PFN or physical address, or one swap slot (a device page;\n"
			 "of a swap file read in place, a page of the file).",
		.epilog = "Numbers may be decimal or 0x-hex.\n",
		.common = CO_RESUME | CO_OUTFILE | CO_FORCE | CO_DEVICE | CO_SPENT |
			  CO_PARTIAL,
		.own = cat_opts,
	};
	const char *pfn_arg = NULL, *phys_arg = NULL, *slot_arg = NULL, *virt_arg = NULL;
	const char *outfile;
	unsigned int oflags = HIB_OUTPUT_STREAM | HIB_OUTPUT_DEVICE_OK;
	struct sink s = { 0 };
	struct hib_image *img;
	struct hib_pfn_range one, *ranges = NULL;
	size_t nranges = 0;
	int c, rc, nsel;

	while ((c = cli_getopt(&cl, argc, argv)) != -1) {
		switch (c) {
		case 'p': pfn_arg = optarg; break;
		case 'a': phys_arg = optarg; break;
		case 's': slot_arg = optarg; break;
		case OPT_LONG + 0: virt_arg = optarg; break;
		}
	}
	outfile = cl.outfile ? cl.outfile : "-";
	if (cl.force)
		oflags |= HIB_OUTPUT_FORCE;
	if (cl.device)
		oflags |= HIB_OUTPUT_DEVICE;
	nsel = !!pfn_arg + !!phys_arg + !!slot_arg + !!virt_arg;
	if (nsel != 1) {
		warnx_(nsel ? "--pfn, --phys, --virt and --slot exclude each other" :
		       "one of --pfn, --phys, --virt or --slot is required");
		errtryhelp("cat");
	}
	if (argc - optind != 1) {
		warnx_(argc - optind ? "too many arguments" : "missing argument: need <spec>");
		errtryhelp("cat");
	}
	/* --virt reads at random: a file or a device, not a pipe */
	img = virt_arg ? open_image(argv[optind], cl.resume_offset) :
		open_input(argv[optind], cl.resume_offset);
	s.img = img;
	s.ps = hib_image_header(img)->page_size;
	if (!s.ps)
		die_(EXIT_USAGE, "%s: no swap or hibernation signature, so no page size",
		     hib_image_path(img));
	s.out = open_output(img, outfile, oflags);

	if (slot_arg) {
		uint64_t slot = parse_u64(slot_arg, "slot");
		unsigned char *buf = malloc(s.ps);

		if (!buf)
			die_(EXIT_IOERR, "out of memory");
		rc = hib_image_read_slot(img, slot, buf);
		if (rc) {
			free(buf);
			warnx_("%s", input_error(img));
			close_output(img, s.out, 0);
			exit(rc_to_exit(rc));
		}
		write_all(&s, buf, s.ps);
		free(buf);
		goto done;
	}

	if (virt_arg) {
		/* before kmem's load: its pass is then the best-effort walk */
		rc = cl.partial ? hib_image_set_partial(img, 1) : HIB_OK;
		if (rc == HIB_OK)
			rc = cat_virt(&s, virt_arg);
		if (rc) {
			warnx_("%s", input_error(img));
			/* a page the damage took: say what the damage was */
			if (cl.partial && rc == HIB_ERR_UNSUPPORTED)
				partial_warn(img);
			close_output(img, s.out, 0);
			hib_image_free(img);
			return rc_to_exit(rc);
		}
		if (cl.partial) {
			partial_warn(img);
			rc = partial_status(img);
		}
		goto done;
	}

	if (pfn_arg) {
		ranges = parse_pfns(pfn_arg, &nranges);
		s.from = 0;
		s.to = UINT64_MAX;
	} else {
		uint64_t addr, len;
		int has_len;

		parse_range(phys_arg, '+', &addr, &len, &has_len, "physical address");
		if (!has_len)
			len = s.ps - addr % s.ps;
		if (!len || addr + len < addr)
			die_(EXIT_USAGE, "invalid length in '%s'", phys_arg);
		ranges = &one;
		nranges = 1;
		one.first = addr / s.ps;
		one.last = (addr + len - 1) / s.ps;
		s.from = addr;
		s.to = addr + len;
	}
	/* before the load: a cut copy's map names pages past its end */
	rc = cl.partial ? hib_image_set_partial(img, 1) : HIB_OK;
	if (rc == HIB_OK)
		rc = hib_image_load(img);
	progress_begin("reading", "entries", 0);
	hib_image_set_progress(img, progress_keep, NULL);
	if (rc == HIB_OK)
		rc = hib_image_read_pfns(img, ranges, nranges, on_page, &s);
	progress_end();
	if (rc) {
		/* A damaged stream midway: no half copy that looks whole. */
		warnx_("%s", input_error(img));
		/* a page the damage took is one the image no longer has: say
		 * what the damage was */
		if (cl.partial && rc == HIB_ERR_INVAL)
			partial_warn(img);
		close_output(img, s.out, 0);
		if (ranges != &one)
			free(ranges);
		hib_image_free(img);
		return rc_to_exit(rc);
	}
	if (cl.partial) {
		/* the pages asked for were all recovered: the damage elsewhere */
		partial_warn(img);
		rc = partial_status(img);
	}
done:
	close_output(img, s.out, 1);
	if (ranges != &one)
		free(ranges);
	hib_image_free(img);
	return rc;
}
