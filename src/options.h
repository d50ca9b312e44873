/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * options.h - one option table for every command. The options all commands
 * share are spelled, parsed and documented once, here (hibimg(1), "Common
 * options"); a command adds only its own, and no own option may take a
 * letter or a name of the common set (cli_getopt() refuses to run).
 */
#ifndef HIBIMG_OPTIONS_H
#define HIBIMG_OPTIONS_H

#include <stdint.h>
#include "output.h"

/* The common options a command accepts. */
#define CO_JSON      0x0001u    /* -J, --json */
#define CO_RAW       0x0002u    /* -r, --raw */
#define CO_PAIRS     0x0004u    /* -P, --pairs */
#define CO_NOHEAD    0x0008u    /* -n, --noheadings */
#define CO_COLUMNS   0x0010u    /* -o, --output <list>, --list-columns */
#define CO_BYTES     0x0020u    /* -b, --bytes */
#define CO_THREADS   0x0040u    /* -T, --threads <n> */
#define CO_RESUME    0x0080u    /* -R, --resume-offset <pages> */
#define CO_QUIET     0x0100u    /* -q, --quiet */
#define CO_VERBOSE   0x0200u    /* -v, --verbose */
#define CO_FORCE     0x0400u    /* -f, --force */
#define CO_DEVICE    0x0800u    /* --device */
#define CO_OUTFILE   0x1000u    /* -O, --output-file <file> */
#define CO_SPENT     0x2000u    /* --spent: read what a resume attempt left */
#define CO_PARTIAL   0x4000u    /* --partial: best effort on a damaged stream */
/* how the result is shown: every command that prints a table or a record */
#define CO_VIEW (CO_JSON | CO_RAW | CO_PAIRS | CO_NOHEAD | CO_COLUMNS | CO_BYTES)

/* A command's own option. val is a letter, or OPT_LONG + n for a long-only
 * option. */
#define OPT_LONG 0x100
struct cli_opt {
	const char *name;
	int has_arg;                /* no_argument, required_argument */
	int val;
	const char *arg;            /* "<n>" in --help, NULL without an argument */
	const char *help;           /* one line; "\n" starts a continuation line */
};

struct cli {
	/* set by the command */
	const char *cmd;            /* "verify" */
	const char *synopsis;       /* "[options] <spec>..." */
	const char *about;          /* what the command does, a few lines */
	const char *sections;       /* extra --help text before Options, or NULL */
	const char *epilog;         /* after Options (exit status, see also) */
	unsigned int common;        /* CO_* */
	const struct cli_opt *own;  /* ended by a NULL name; may be NULL */
	/* filled by cli_getopt() */
	struct out_opts out;
	unsigned int threads;       /* 0: the command's default */
	uint64_t resume_offset;
	int resume_offset_set;      /* -R given: it wins over the machine's */
	int quiet, verbose, force, device;
	int spent;                  /* --spent */
	int partial;                /* --partial */
	const char *outfile;
};

/* Like getopt_long(): returns the next own option's val (optarg set), -1
 * at the end of the options. Handles the common ones itself, -h and -V
 * included; an unknown option or a bad value prints why and exits 2. */
int cli_getopt(struct cli *c, int argc, char **argv);
void cli_usage(const struct cli *c) __attribute__((noreturn));

/* The command now running, for messages ("hibimg verify: ..."), and
 * whether it was asked for JSON: then an error is a JSON document too. */
extern const char *cli_command;
extern int cli_json;
/* --spent for the command now running: -1 it has no such option, 0 not
 * given, 1 given. input_open() lets the library read a spent area when 1;
 * input_error() adds the hint to a refusal when 0 (input.h). */
extern int cli_spent;

#endif
