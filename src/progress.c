/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * progress.c - the progress line (see progress.h). The command name leads
 * it, as every message does: "hibimg verify: 42% (1680/4016 pages)".
 */
#include "config.h"
#include "progress.h"
#include "options.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static struct {
	int on;
	int shown;
	char phase[32];
	const char *what;
	double last;
} pr;

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

void progress_begin(const char *phase, const char *what, int quiet)
{
	memset(&pr, 0, sizeof(pr));
	pr.on = !quiet && isatty(STDERR_FILENO);
	snprintf(pr.phase, sizeof(pr.phase), "%s", phase);
	pr.what = what;
}

void progress_phase(const char *phase)
{
	snprintf(pr.phase, sizeof(pr.phase), "%s", phase);
	pr.last = 0;
}

void progress_update(uint64_t done, uint64_t total)
{
	double t;

	if (!pr.on)
		return;
	t = now();
	if (done < total && t - pr.last < 0.1)
		return;
	pr.last = t;
	pr.shown = 1;
	fprintf(stderr, "\r\033[Khibimg %s: %s: %3u%% (%" PRIu64 "/%" PRIu64 " %s)",
		cli_command ? cli_command : "", pr.phase,
		total ? (unsigned)(done * 100 / total) : 100, done, total,
		pr.what ? pr.what : "");
}

void progress_end(void)
{
	if (pr.on && pr.shown)
		fputs("\r\033[K", stderr);
	pr.shown = 0;
	pr.on = 0;
}

void progress_cb(const char *phase, uint64_t done, uint64_t total, void *arg)
{
	(void)arg;
	if (phase && strcmp(phase, pr.phase))
		progress_phase(phase);
	progress_update(done, total);
}

void progress_cb2(uint64_t done, uint64_t total, void *arg)
{
	(void)arg;
	progress_update(done, total);
}

void progress_keep(const char *phase, uint64_t done, uint64_t total, void *arg)
{
	(void)phase;
	(void)arg;
	progress_update(done, total);
}
