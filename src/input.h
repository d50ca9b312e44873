/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * input.h - how a command names its input, and what it is told when the
 * input cannot be read: the library's spec rules (a path, LABEL=, UUID=,
 * PARTLABEL=, PARTUUID=), "-" for standard input where the command reads
 * the stream once, and a compressed file's hint. One place composes those
 * messages, so every command words them alike.
 */
#ifndef HIBIMG_INPUT_H
#define HIBIMG_INPUT_H

#include <stddef.h>
#include <hibimg.h>

/* "-" is standard input: the command reads the stream once (verify, stats,
 * export raw/LiME, cat). Without it "-" is refused, by name. */
#define INPUT_STDIN 0x1u

/* Opens spec into img (a fresh handle, its resume offset already set).
 * Returns 0, or the exit status with the message in msg (without the
 * "hibimg CMD: " that warnx_() adds). Standard input that is a pipe is
 * first copied whole into an unnamed temporary file in $TMPDIR, else
 * /var/tmp (the library reads at offsets, the map chain first), which
 * vanishes with the process; a file or device on standard input is read
 * in place. */
int input_open(struct hib_image *img, const char *spec, unsigned int flags,
	       char *msg, size_t cap);

#endif
