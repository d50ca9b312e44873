/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * swapfile.c - a swap file read in place. The kernel keeps a swap file as
 * extents of its block device (mm/swapfile.c, fs/iomap/swapfile.c) and
 * writes the image there directly: the resume page is the file's page 0
 * on the device (resume_offset = its device page, in PAGE_SIZE units,
 * swap_type_of() against the first swap extent's start_block), and every
 * swap-map page and map entry is a device page, not a file page. So a
 * regular file holding a hibernation image is read from the device under
 * it, through the extents FIEMAP gives, and every page the map names must
 * lie inside those extents.
 *
 * Unwritten (preallocated) extents are taken, as the kernel takes them
 * ("swap ... makes no distinction between written and unwritten extents",
 * fs/iomap/swapfile.c): the file system reads them as zeros, the device
 * holds what the kernel wrote, which is why the device is read.
 *
 * Which view a regular file gets is decided by its first swap-map page:
 * a copy of a partition keeps file pages there, a swap file device pages.
 * A file whose map fits neither is a copy of a swap file's bytes (or its
 * first map page is gone), said so by name, not as damage.
 */
#include "hibimgP.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/fiemap.h>
#include <linux/fs.h>
#include <linux/magic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/sysmacros.h>
#include <unistd.h>
#include <blkid.h>

#define FIEMAP_BATCH 128u

static int ext_by_file(const void *a, const void *b)
{
	const struct hib_sw_extent *x = a, *y = b;

	return x->file_page < y->file_page ? -1 : x->file_page > y->file_page;
}

static int ext_by_dev(const void *a, const void *b)
{
	const struct hib_sw_extent *x = a, *y = b;

	return x->dev_page < y->dev_page ? -1 : x->dev_page > y->dev_page;
}

static void why(struct hib_image *img, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void why(struct hib_image *img, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(img->sw_why, sizeof(img->sw_why), fmt, ap);
	va_end(ap);
}

/* The file's extents in pages of ps, from FIEMAP. Not FIEMAP_FLAG_SYNC:
 * reading evidence starts no writeback of it, and a swap file the kernel
 * took has no delayed allocation anyway. Each problem the kernel's swapon would
 * refuse is named; false leaves the reason in sw_why. */
static bool map_extents(struct hib_image *img, int fd, uint64_t npages, unsigned int ps)
{
	size_t sz = sizeof(struct fiemap) + FIEMAP_BATCH * sizeof(struct fiemap_extent);
	struct fiemap *fm = malloc(sz);
	uint64_t next = 0, end = npages * ps;   /* next file byte expected */
	bool ok = false, last = false;

	if (!fm) {
		why(img, "out of memory");
		return false;
	}
	while (!last && next < end) {
		unsigned int i;

		memset(fm, 0, sz);
		fm->fm_start = next;
		fm->fm_length = end - next;
		fm->fm_flags = 0;
		fm->fm_extent_count = FIEMAP_BATCH;
		if (ioctl(fd, FS_IOC_FIEMAP, fm) < 0) {
			why(img, "the file system gives no extents (FIEMAP: %s)", strerror(errno));
			goto out;
		}
		if (fm->fm_mapped_extents == 0)
			break;
		for (i = 0; i < fm->fm_mapped_extents; i++) {
			const struct fiemap_extent *e = &fm->fm_extents[i];
			uint64_t lo = e->fe_logical, len = e->fe_length;
			struct hib_sw_extent *n;

			if (e->fe_flags & FIEMAP_EXTENT_LAST)
				last = true;
			if (lo >= end)
				continue;
			if (lo > next) {
				why(img, "file page %" PRIu64 " is a hole: the kernel refuses a swap file with holes at swapon (\"has unallocated extents\")",
				    next / ps);
				goto out;
			}
			if (e->fe_flags & (FIEMAP_EXTENT_DATA_INLINE | FIEMAP_EXTENT_DATA_TAIL |
					   FIEMAP_EXTENT_NOT_ALIGNED)) {
				why(img, "file page %" PRIu64 " is stored inline with metadata, not in blocks of its own: the kernel refuses such a swap file (\"is inline\")",
				    lo / ps);
				goto out;
			}
			if (e->fe_flags & (FIEMAP_EXTENT_ENCODED | FIEMAP_EXTENT_DATA_ENCRYPTED)) {
				why(img, "file page %" PRIu64 " is encoded (compressed or encrypted) on the device: the kernel refuses such a swap file",
				    lo / ps);
				goto out;
			}
			if (e->fe_flags & (FIEMAP_EXTENT_UNKNOWN | FIEMAP_EXTENT_DELALLOC)) {
				why(img, "file page %" PRIu64 " has no place on the device yet (delayed allocation: written and not yet synced; no swap file the kernel took is so)",
				    lo / ps);
				goto out;
			}
			if (e->fe_flags & FIEMAP_EXTENT_SHARED) {
				why(img, "file page %" PRIu64 " shares its blocks with another file (reflink): the kernel refuses such a swap file (\"has shared extents\")",
				    lo / ps);
				goto out;
			}
			/* fs/iomap/swapfile.c uses whole pages only */
			if (lo % ps || e->fe_physical % ps || len % ps) {
				why(img, "the extent at file byte %" PRIu64 " is not aligned to the %u-byte page on the device",
				    lo, ps);
				goto out;
			}
			if (len > end - lo)
				len = end - lo;
			if (lo + len <= next)
				continue;
			if (e->fe_flags & FIEMAP_EXTENT_UNWRITTEN)
				img->sw.unwritten_pages += len / ps;
			next = lo + len;
			/* one run where the next extent goes on where the last
			 * ended, as the kernel's swap extents merge them (written
			 * and unwritten alike) */
			n = img->sw_n ? &img->sw_ext[img->sw_n - 1] : NULL;
			if (n && n->file_page + n->pages == lo / ps &&
			    n->dev_page + n->pages == e->fe_physical / ps) {
				n->pages += len / ps;
				continue;
			}
			n = realloc(img->sw_ext, (img->sw_n + 1) * sizeof(*n));
			if (!n) {
				why(img, "out of memory");
				goto out;
			}
			img->sw_ext = n;
			n[img->sw_n].file_page = lo / ps;
			n[img->sw_n].dev_page = e->fe_physical / ps;
			n[img->sw_n].pages = len / ps;
			img->sw_n++;
		}
	}
	if (next < end) {
		why(img, "file page %" PRIu64 " is a hole: the kernel refuses a swap file with holes at swapon (\"has unallocated extents\")",
		    next / ps);
		goto out;
	}
	ok = img->sw_n > 0;
	if (!ok)
		why(img, "the file has no pages");
out:
	free(fm);
	return ok;
}

/* The block device node under st_dev: its DEVNAME in sysfs. */
static int open_device(struct hib_image *img, dev_t d)
{
	char p[320], line[256], *name = NULL;
	struct stat st;
	FILE *f;
	int fd;

	snprintf(p, sizeof(p), "/sys/dev/block/%u:%u/uevent", major(d), minor(d));
	f = fopen(p, "re");
	if (!f) {
		why(img, "its file system is on no block device this system lists (device %u:%u: a network, memory or FUSE file system?)",
		    major(d), minor(d));
		return -1;
	}
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, "DEVNAME=", 8)) {
			line[strcspn(line, "\n")] = 0;
			name = line + 8;
			break;
		}
	fclose(f);
	if (!name) {
		why(img, "device %u:%u has no name in %s", major(d), minor(d), p);
		return -1;
	}
	snprintf(p, sizeof(p), "/dev/%s", name);
	/* Evidence is never opened for writing. */
	fd = open(p, O_RDONLY | O_CLOEXEC | O_NOCTTY);
	if (fd < 0) {
		why(img, "cannot open its device %s: %s", p, strerror(errno));
		return -1;
	}
	if (fstat(fd, &st) < 0 || !S_ISBLK(st.st_mode) || st.st_rdev != d) {
		why(img, "%s is not the block device %u:%u", p, major(d), minor(d));
		close(fd);
		return -1;
	}
	img->sw_device = strdup(p);
	if (!img->sw_device) {
		why(img, "out of memory");
		close(fd);
		return -1;
	}
	return fd;
}

/* The file system's UUID and type, as libblkid reads them from the
 * device (the resume= line names the file system, not the swap area). */
static void fs_identity(struct hib_image *img, int fd)
{
	blkid_probe pr = blkid_new_probe();
	const char *v;

	if (!pr)
		return;
	if (blkid_probe_set_device(pr, fd, 0, 0) == 0) {
		blkid_probe_enable_superblocks(pr, 1);
		blkid_probe_set_superblocks_flags(pr, BLKID_SUBLKS_UUID | BLKID_SUBLKS_TYPE);
		if (blkid_do_safeprobe(pr) == 0) {
			if (blkid_probe_lookup_value(pr, "UUID", &v, NULL) == 0)
				snprintf(img->sw.fs_uuid, sizeof(img->sw.fs_uuid), "%s", v);
			if (blkid_probe_lookup_value(pr, "TYPE", &v, NULL) == 0)
				snprintf(img->sw.fs_type, sizeof(img->sw.fs_type), "%s", v);
		}
	}
	blkid_free_probe(pr);
}

/* The page at off of a view names a first swap-map page: its entry 0
 * (swsusp_info) is a page of that view (ok() says which). A zero page, a
 * data page or random bytes fail; damage further into a map page does not
 * change the view, it is reported as damage by the map walk. -1: the page
 * could not be read (the map walk will say where). */
static int plausible_map(struct hib_image *img, int fd, uint64_t off,
			 bool (*ok)(const struct hib_image *, uint64_t))
{
	const struct hib_layout *lay = &img->lay;
	unsigned char *pg = malloc(lay->ps);
	int good = -1;

	if (pg && pread(fd, pg, lay->ps, (off_t)off) == (ssize_t)lay->ps)
		good = ok(img, hib_get_word(lay, pg, lay->sector));
	free(pg);
	return good;
}

static bool file_page_ok(const struct hib_image *img, uint64_t v)
{
	return v > 0 && v < img->devpages;
}

static bool dev_page_ok(const struct hib_image *img, uint64_t v)
{
	uint64_t s;

	return hib_sw_dev_slot(img, v, &s) && s > 0;
}

static void sw_drop(struct hib_image *img, int devfd)
{
	if (devfd >= 0)
		close(devfd);
	free(img->sw_ext);
	free(img->sw_bydev);
	free(img->sw_device);
	img->sw_ext = img->sw_bydev = NULL;
	img->sw_device = NULL;
	img->sw_n = 0;
}

int hib_swapfile_attach(struct hib_image *img, const struct stat *st)
{
	const struct hib_header *h = &img->hdr;
	unsigned int ps = img->lay.ps;
	bool image = h->kind == HIB_KIND_KERNEL || h->kind == HIB_KIND_KERNEL_DEV ||
		     h->kind == HIB_KIND_SPENT;
	unsigned char *a = NULL, *b = NULL;
	uint64_t sz = 0, first;
	struct statfs sf;
	int devfd = -1;

	img->sw_why[0] = 0;
	/* Only the kernel's container keeps device pages in a swap file's
	 * map; with -R the caller chose the view. */
	if (img->ct != &hib_swsusp || img->resume_offset || !ps ||
	    (!image && h->kind != HIB_KIND_SWAP))
		return HIB_OK;
	/* a copy of a partition: file pages; a first map page of 0 is
	 * damage in either view */
	if (image && (!h->image || (file_page_ok(img, h->image) &&
				    plausible_map(img, img->fd, h->image * ps, file_page_ok))))
		return HIB_OK;      /* (a read error too: the map walk names it) */
	img->sw.file_pages = img->devpages;
	if (fstatfs(img->fd, &sf) == 0 && (uint32_t)sf.f_type == BTRFS_SUPER_MAGIC) {
		/* FIEMAP on btrfs answers in its logical address space,
		 * which is not a device offset. */
		why(img, "on btrfs, FIEMAP gives logical addresses, not device pages: get the offset from btrfs inspect-internal map-swapfile -r %s and run hibimg on the device with -R",
		    img->path);
		img->sw_btrfs = true;
		goto refuse;
	}
	if (!map_extents(img, img->fd, img->devpages, ps))
		goto refuse;
	if ((devfd = open_device(img, st->st_dev)) < 0)
		goto refuse;
	if (ioctl(devfd, BLKGETSIZE64, &sz) < 0) {
		why(img, "cannot get the size of %s: %s", img->sw_device, strerror(errno));
		goto refuse;
	}
	img->sw_bydev = malloc(img->sw_n * sizeof(*img->sw_bydev));
	if (!img->sw_bydev) {
		why(img, "out of memory");
		goto refuse;
	}
	qsort(img->sw_ext, img->sw_n, sizeof(*img->sw_ext), ext_by_file);
	memcpy(img->sw_bydev, img->sw_ext, img->sw_n * sizeof(*img->sw_bydev));
	qsort(img->sw_bydev, img->sw_n, sizeof(*img->sw_bydev), ext_by_dev);
	first = img->sw_ext[0].dev_page;
	if (img->sw_bydev[img->sw_n - 1].dev_page + img->sw_bydev[img->sw_n - 1].pages >
	    sz / ps) {
		why(img, "its extents reach beyond the end of %s", img->sw_device);
		goto refuse;
	}
	/* The device must hold what the file shows at page 0: else the
	 * mapping is not the one the kernel used. */
	a = malloc(ps);
	b = malloc(ps);
	if (!a || !b || pread(img->fd, a, ps, 0) != (ssize_t)ps ||
	    pread(devfd, b, ps, (off_t)(first * ps)) != (ssize_t)ps || memcmp(a, b, ps)) {
		why(img, "page %" PRIu64 " of %s does not hold the file's first page", first,
		    img->sw_device ? img->sw_device : "its device");
		goto refuse;
	}
	if (image && !(dev_page_ok(img, h->image) &&
		       plausible_map(img, devfd, h->image * ps, dev_page_ok) == 1)) {
		why(img, "its first swap-map page %" PRIu64 " is %s", h->image,
		    dev_page_ok(img, h->image) ? "not a swap-map page on the device" :
		    "not one of the file's own pages on the device");
		goto refuse;
	}
	free(a);
	free(b);
	/* From here on the handle reads the device; the file is kept for
	 * the outputs' evidence check. */
	img->sw_file_fd = img->fd;
	img->fd = devfd;
	img->devsize = sz;
	img->devpages = sz / ps;
	img->resume_offset = first;
	img->hdr.resume_offset = first;
	img->hdr.device_size = sz;
	img->sw.device = img->sw_device;
	img->sw.dev_major = major(st->st_dev);
	img->sw.dev_minor = minor(st->st_dev);
	img->sw.resume_offset = first;
	img->sw.extents = img->sw_n;
	fs_identity(img, devfd);
	img->in_place = true;
	return HIB_OK;
refuse:
	free(a);
	free(b);
	sw_drop(img, devfd);
	memset(&img->sw, 0, sizeof(img->sw));
	img->copy_suspect = image;
	return HIB_OK;
}

void hib_swapfile_release(struct hib_image *img)
{
	if (img->sw_file_fd >= 0)
		close(img->sw_file_fd);
	img->sw_file_fd = -1;
	sw_drop(img, -1);
}

int hib_swapfile_copy_error(struct hib_image *img)
{
	const struct hib_header *h = &img->hdr;
	const char *where = h->image < img->devpages ? "is no swap-map page in" :
			    "lies beyond the end of";

	/* On btrfs the file may well be the swap file itself: say how to
	 * read it, not that it is a copy. */
	if (img->sw_btrfs)
		return hib_seterr(img, HIB_ERR_UNSUPPORTED,
				  "%s: its swap map points at device pages (the first swap-map page, %" PRIu64 ", %s this file) and a swap file on btrfs is not read in place (FIEMAP gives btrfs's logical addresses there): get its offset with btrfs inspect-internal map-swapfile -r %s and run hibimg on the device with -R <offset>",
				  img->path, h->image, where, img->path);
	return hib_seterr(img, HIB_ERR_UNSUPPORTED,
			  "%s: this looks like a copy of a swap file's bytes, not a swap area: its swap map points at device pages (the first swap-map page, %" PRIu64 ", %s this file); run hibimg on the device that holds the swap file with -R <its first block in pages, filefrag -v>, or on the swap file in place%s%s%s",
			  img->path, h->image, where,
			  img->sw_why[0] ? " (not read in place: " : "", img->sw_why,
			  img->sw_why[0] ? ")" : "");
}

bool hib_swapfile_page0(struct hib_image *img)
{
	unsigned char *pg = malloc(HIB_MAX_PS);
	unsigned int ps;
	enum hib_kind kind;
	bool swap, found = false;

	if (!pg)
		return false;
	for (ps = HIB_MIN_PS; ps <= HIB_MAX_PS && !found && ps <= img->devsize; ps <<= 1)
		if (pread(img->fd, pg, ps, 0) == (ssize_t)ps) {
			(void)hib_probe_signature(pg + ps - 10, &kind, &swap);
			found = kind != HIB_KIND_UNKNOWN;
		}
	free(pg);
	return found;
}

const struct hib_swapfile *hib_image_swapfile(const struct hib_image *img)
{
	return img->opened && img->in_place ? &img->sw : NULL;
}

const char *hib_image_swapfile_why(const struct hib_image *img)
{
	return img->opened && !img->in_place && img->sw_why[0] ? img->sw_why : NULL;
}
