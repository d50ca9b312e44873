/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * check_output - the output rules of lib/outfile.c through the public API
 * (hib_output_*): what appears under the name and when, what is kept, what
 * is refused. The CLI's table of the same rules is tests/cli-outputs.sh.
 */
#include "config.h"

#include <check.h>
#include <dirent.h>
#include <fcntl.h>
#include <hibimg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "testutil.h"

static char dir[256];

static void setup(void)
{
	snprintf(dir, sizeof(dir), "/tmp/hibimg-check-output-XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(dir));
}

static void teardown(void)
{
	char cmd[300];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	ck_assert_int_eq(system(cmd), 0);
}

static const char *at(const char *name)
{
	static char p[4][512];
	static int k;

	k = (k + 1) % 4;
	snprintf(p[k], sizeof(p[k]), "%s/%s", dir, name);
	return p[k];
}

static void put(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	ck_assert_ptr_nonnull(f);
	fputs(text, f);
	ck_assert_int_eq(fclose(f), 0);
}

/* the whole file, NUL-terminated */
static char *get(const char *path, size_t *len)
{
	char *s = slurp(path, len);

	ck_assert_ptr_nonnull(s);
	return s;
}

static int entries(void)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	int n = 0;

	ck_assert_ptr_nonnull(d);
	while ((de = readdir(d)))
		n += de->d_name[0] != '.';
	closedir(d);
	return n;
}

START_TEST(new_file_appears_when_complete)
{
	struct hib_image *img = hib_image_new();
	struct hib_output *o;
	struct stat st;
	size_t len;
	char *s;

	ck_assert_int_eq(hib_output_open(img, at("new"), 0, 0, &o), HIB_OK);
	ck_assert_int_eq(hib_output_pwrite(o, "world", 5, 6), HIB_OK);
	ck_assert_int_eq(hib_output_pwrite(o, "hello ", 6, 0), HIB_OK);
	/* nothing under the name, and nothing else either, before close */
	ck_assert_int_ne(access(at("new"), F_OK), 0);
	ck_assert_int_eq(hib_output_close(o, HIB_OK), HIB_OK);
	s = get(at("new"), &len);
	ck_assert_uint_eq(len, 11);
	ck_assert_str_eq(s, "hello world");
	free(s);
	ck_assert_int_eq(stat(at("new"), &st), 0);
	ck_assert_uint_eq(st.st_mode & 0777, 0600);
	ck_assert_int_eq(entries(), 1);
	hib_image_free(img);
}
END_TEST

START_TEST(failed_output_leaves_nothing)
{
	struct hib_image *img = hib_image_new();
	struct hib_output *o;

	ck_assert_int_eq(hib_output_open(img, at("gone"), 0, 0, &o), HIB_OK);
	ck_assert_int_eq(hib_output_pwrite(o, "x", 1, 0), HIB_OK);
	ck_assert_int_eq(hib_output_close(o, HIB_ERR_DAMAGED), HIB_ERR_DAMAGED);
	ck_assert_int_eq(entries(), 0);
	hib_image_free(img);
}
END_TEST

START_TEST(existing_needs_force_and_survives_failure)
{
	struct hib_image *img = hib_image_new();
	struct hib_output *o;
	struct stat st;
	size_t len;
	char *s;

	put(at("old"), "old");
	chmod(at("old"), 0644);
	ck_assert_int_eq(hib_output_open(img, at("old"), 0, 0, &o), HIB_ERR_INVAL);
	ck_assert_ptr_null(o);
	ck_assert_ptr_nonnull(strstr(hib_image_error(img), "refusing to replace it without --force"));

	/* forced, then failed: the old file as it was */
	ck_assert_int_eq(hib_output_open(img, at("old"), HIB_OUTPUT_FORCE, 0, &o), HIB_OK);
	ck_assert_int_eq(hib_output_pwrite(o, "new!", 4, 0), HIB_OK);
	s = get(at("old"), &len);
	ck_assert_str_eq(s, "old");
	free(s);
	(void)hib_output_close(o, HIB_ERR_IO);
	s = get(at("old"), &len);
	ck_assert_str_eq(s, "old");
	free(s);
	ck_assert_int_eq(entries(), 1);

	/* forced and complete: replaced, mode 0600 */
	ck_assert_int_eq(hib_output_open(img, at("old"), HIB_OUTPUT_FORCE, 0, &o), HIB_OK);
	ck_assert_int_eq(hib_output_pwrite(o, "new!", 4, 0), HIB_OK);
	ck_assert_int_eq(hib_output_close(o, HIB_OK), HIB_OK);
	s = get(at("old"), &len);
	ck_assert_str_eq(s, "new!");
	free(s);
	ck_assert_int_eq(stat(at("old"), &st), 0);
	ck_assert_uint_eq(st.st_mode & 0777, 0600);
	ck_assert_int_eq(entries(), 1);
	hib_image_free(img);
}
END_TEST

START_TEST(refuses_what_is_not_a_file)
{
	struct hib_image *img = hib_image_new();
	struct hib_output *o;

	ck_assert_int_eq(mkdir(at("d"), 0700), 0);
	ck_assert_int_eq(hib_output_open(img, at("d"), HIB_OUTPUT_FORCE, 0, &o), HIB_ERR_INVAL);
	ck_assert_ptr_nonnull(strstr(hib_image_error(img), "is a directory"));
	ck_assert_int_eq(mkfifo(at("fifo"), 0600), 0);
	ck_assert_int_eq(hib_output_open(img, at("fifo"), HIB_OUTPUT_FORCE, 0, &o), HIB_ERR_INVAL);
	ck_assert_ptr_nonnull(strstr(hib_image_error(img), "not a regular file"));
	ck_assert_int_eq(hib_output_open(img, "/dev/null", HIB_OUTPUT_FORCE, 0, &o), HIB_ERR_INVAL);
	ck_assert_int_eq(symlink(at("nowhere"), at("dangling")), 0);
	ck_assert_int_eq(hib_output_open(img, at("dangling"), 0, 0, &o), HIB_ERR_INVAL);
	ck_assert_ptr_nonnull(strstr(hib_image_error(img), "dangling"));
	ck_assert_int_ne(access(at("nowhere"), F_OK), 0);
	ck_assert_int_eq(hib_output_open(img, at("d/x/y"), 0, 0, &o), HIB_ERR_INVAL);
	ck_assert_ptr_nonnull(strstr(hib_image_error(img), "not a directory"));
	ck_assert_int_eq(hib_output_open(img, at("regular"), HIB_OUTPUT_DEVICE, 0, &o),
			 HIB_ERR_INVAL);
	ck_assert_ptr_nonnull(strstr(hib_image_error(img), "no such device"));
	ck_assert_int_eq(hib_output_open(img, "", 0, 0, &o), HIB_ERR_INVAL);
	hib_image_free(img);
}
END_TEST

START_TEST(refuses_the_input)
{
	struct hib_image *img = hib_image_new();
	struct hib_output *o;
	char fix[512], names[32][64];

	ck_assert_uint_gt(fixtures_list(names, 32), 0);
	fixture_img(fix, sizeof(fix), names[0]);
	ck_assert_int_eq(hib_image_open(img, fix), HIB_OK);
	ck_assert_int_eq(hib_output_open(img, fix, HIB_OUTPUT_FORCE, 0, &o), HIB_ERR_INVAL);
	ck_assert_ptr_nonnull(strstr(hib_image_error(img), "is the input itself"));
	ck_assert_int_eq(symlink(fix, at("sym")), 0);
	ck_assert_int_eq(hib_output_open(img, at("sym"), HIB_OUTPUT_FORCE, 0, &o), HIB_ERR_INVAL);
	ck_assert_ptr_nonnull(strstr(hib_image_error(img), "is the input itself"));
	/* another file is fine */
	ck_assert_int_eq(hib_output_open(img, at("other"), 0, 0, &o), HIB_OK);
	ck_assert_int_eq(hib_output_close(o, HIB_OK), HIB_OK);
	hib_image_free(img);
}
END_TEST

START_TEST(stream_gaps_are_zeros_and_order_is_kept)
{
	struct hib_image *img = hib_image_new();
	struct hib_output *o;
	size_t len, i;
	char *s;

	ck_assert_int_eq(hib_output_open(img, at("s"), HIB_OUTPUT_STREAM, 0, &o), HIB_OK);
	ck_assert_int_eq(hib_output_pwrite(o, "ab", 2, 0), HIB_OK);
	ck_assert_int_eq(hib_output_pwrite(o, "cd", 2, 100000), HIB_OK);
	ck_assert_int_eq(hib_output_pwrite(o, "ef", 2, 50), HIB_ERR_INVAL);
	ck_assert_int_eq(hib_output_set_size(o, 200000), HIB_OK);
	ck_assert_int_eq(hib_output_close(o, HIB_OK), HIB_OK);
	s = get(at("s"), &len);
	ck_assert_uint_eq(len, 200000);
	ck_assert(s[0] == 'a' && s[1] == 'b' && s[100000] == 'c' && s[100001] == 'd');
	for (i = 2; i < len; i++)
		if (i != 100000 && i != 100001)
			ck_assert_int_eq(s[i], 0);
	free(s);

	/* "-" is standard output only for an output written in order */
	ck_assert_int_eq(hib_output_open(img, "-", 0, 0, &o), HIB_ERR_INVAL);
	ck_assert_ptr_nonnull(strstr(hib_image_error(img), "standard output"));
	ck_assert_int_ne(access("-", F_OK), 0);
	hib_image_free(img);
}
END_TEST

static Suite *output_suite(void)
{
	Suite *s = suite_create("output");
	TCase *tc = tcase_create("files");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, new_file_appears_when_complete);
	tcase_add_test(tc, failed_output_leaves_nothing);
	tcase_add_test(tc, existing_needs_force_and_survives_failure);
	tcase_add_test(tc, refuses_what_is_not_a_file);
	tcase_add_test(tc, refuses_the_input);
	tcase_add_test(tc, stream_gaps_are_zeros_and_order_is_kept);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return check_run(output_suite());
}
