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

/* hib_image_open() by the command's rules: img is a fresh handle, its
 * resume offset already set. Returns the library's code (HIB_OK,
 * HIB_ERR_*: rc_to_exit() turns it into the exit status); input_error()
 * then says why. Standard input that is a pipe is first copied whole into
 * an unnamed temporary file in $TMPDIR, else /var/tmp (the library reads
 * at offsets, the map chain first), which vanishes with the process; a
 * file or device on standard input is read in place. */
int input_open(struct hib_image *img, const char *spec, unsigned int flags);
/* Why the last input_open() of img failed (a compressed file's hint, a
 * refused '-'), without the "hibimg CMD: " warnx_() adds; for any other
 * failure of img, hib_image_error(), with " (--spent reads what is left)"
 * when img is a spent area and the command takes --spent but was not
 * given it. With --spent, input_open() lets the library read spent areas. */
const char *input_error(const struct hib_image *img);

/* What to do next with an input the command cannot read, or "": for a
 * file system with no signature (a disk image of the one that holds a
 * swap file), that 'hibimg find' gives the resume_offset and -R reads it.
 * One hint, said alike by every command that refuses such an input. */
const char *input_hint(const struct hib_image *img);

#endif
