/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * fsprobe.c - what libblkid sees in a range of an input: the partitions of
 * a disk (image), and the file system or swap area a range holds. Always
 * on the descriptor the caller opened read-only, never by path, so that
 * libblkid neither opens the evidence again nor touches its cache file.
 */
#include "hibimgP.h"

#include <stdlib.h>
#include <string.h>
#include <blkid.h>

static void take(blkid_probe pr, const char *name, char *dst, size_t cap)
{
	const char *v = NULL;
	size_t i;

	dst[0] = 0;
	if (blkid_probe_lookup_value(pr, name, &v, NULL) || !v)
		return;
	/* a label is what the file system says: printable only */
	for (i = 0; v[i] && i + 1 < cap; i++)
		dst[i] = (v[i] >= 0x20 && v[i] < 0x7f) ? v[i] : '?';
	dst[i] = 0;
}

bool hib_fs_probe(int fd, uint64_t off, uint64_t size, struct hib_fs *fs)
{
	blkid_probe pr = blkid_new_probe();
	bool found = false;

	memset(fs, 0, sizeof(*fs));
	if (!pr)
		return false;
	if (blkid_probe_set_device(pr, fd, (blkid_loff_t)off, (blkid_loff_t)size) == 0) {
		blkid_probe_enable_superblocks(pr, 1);
		blkid_probe_set_superblocks_flags(pr, BLKID_SUBLKS_TYPE | BLKID_SUBLKS_UUID |
						  BLKID_SUBLKS_LABEL);
		blkid_probe_enable_partitions(pr, 0);
		/* 0: one type found; 1: none; -2: two that disagree */
		if (blkid_do_safeprobe(pr) == 0) {
			take(pr, "TYPE", fs->type, sizeof(fs->type));
			take(pr, "UUID", fs->uuid, sizeof(fs->uuid));
			take(pr, "LABEL", fs->label, sizeof(fs->label));
			found = fs->type[0] != 0;
		}
	}
	blkid_free_probe(pr);
	return found;
}

int hib_fs_partitions(int fd, uint64_t size, struct hib_part **out, size_t *n)
{
	blkid_probe pr = blkid_new_probe();
	blkid_partlist ls;
	struct hib_part *v = NULL;
	int i, np;

	*out = NULL;
	*n = 0;
	if (!pr)
		return HIB_ERR_NOMEM;
	if (blkid_probe_set_device(pr, fd, 0, (blkid_loff_t)size) == 0) {
		blkid_probe_enable_superblocks(pr, 0);
		blkid_probe_enable_partitions(pr, 1);
		ls = blkid_probe_get_partitions(pr);
		np = ls ? blkid_partlist_numof_partitions(ls) : 0;
		if (np > 0) {
			v = calloc((size_t)np, sizeof(*v));
			if (!v) {
				blkid_free_probe(pr);
				return HIB_ERR_NOMEM;
			}
		}
		for (i = 0; i < np; i++) {
			blkid_partition p = blkid_partlist_get_partition(ls, i);
			blkid_loff_t s = blkid_partition_get_start(p);
			blkid_loff_t l = blkid_partition_get_size(p);

			/* in 512-byte sectors; a range past the end is not ours to read */
			if (!p || s < 0 || l <= 0 || (uint64_t)s > size / 512 ||
			    (uint64_t)l > size / 512 - (uint64_t)s)
				continue;
			v[*n].start = (uint64_t)s * 512;
			v[*n].size = (uint64_t)l * 512;
			v[*n].partno = blkid_partition_get_partno(p);
			/* an extended partition holds the logical ones: the
			 * innermost is the area */
			v[*n].container = blkid_partition_is_extended(p);
			(*n)++;
		}
	}
	blkid_free_probe(pr);
	*out = v;
	return HIB_OK;
}
