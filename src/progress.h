/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * progress.h - one progress line for every long pass: on standard error,
 * only when it is a terminal (and not with --quiet), at most ten updates a
 * second, cleared when the pass ends so nothing is left mid-line.
 */
#ifndef HIBIMG_PROGRESS_H
#define HIBIMG_PROGRESS_H

#include <stdint.h>

/* Starts a line for a pass that counts what ("pages", "entries"); off when
 * stderr is not a terminal or quiet is set. */
void progress_begin(const char *phase, const char *what, int quiet);
/* Renames the pass (recompress: sizing, then writing) and keeps the line. */
void progress_phase(const char *phase);
void progress_update(uint64_t done, uint64_t total);
void progress_end(void);
/* A libhibimg progress callback: arg unused, phase NULL keeps the name. */
void progress_cb(const char *phase, uint64_t done, uint64_t total, void *arg);
void progress_cb2(uint64_t done, uint64_t total, void *arg);
/* The same for hib_image_set_progress(), keeping the line's own name (the
 * input, where several are read one after the other). */
void progress_keep(const char *phase, uint64_t done, uint64_t total, void *arg);

#endif
