/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * abi.c - the one rule for structs the caller allocates (options it
 * passes, results the library fills): they start with a size_t size the
 * caller sets to its sizeof (HIB_INIT). A caller built against an older
 * hibimg.h passes a smaller size; the library then reads its options as
 * 0 (the default) past that size and writes its results only up to it,
 * so fields can be appended without breaking that caller.
 */
#include "hibimgP.h"

#include <string.h>

static size_t caller_size(const void *caller)
{
	size_t size;

	memcpy(&size, caller, sizeof(size));
	return size;
}

int hib_abi_size(struct hib_image *img, const char *name, const void *caller,
		 size_t min, size_t full)
{
	size_t size;

	if (!caller)
		return hib_seterr(img, HIB_ERR_INVAL, "struct %s: none given", name);
	size = caller_size(caller);
	/* Below the first layout the caller's struct cannot be one of ours
	 * (an unset size reads 0); above ours it was built against a newer
	 * header whose fields this library would silently drop. */
	if (size >= min && size <= full)
		return HIB_OK;
	if (min == full)
		return hib_seterr(img, HIB_ERR_INVAL,
				  "struct %s: .size is %zu, this library takes %zu (set it with HIB_INIT(struct %s))",
				  name, size, full, name);
	return hib_seterr(img, HIB_ERR_INVAL,
			  "struct %s: .size is %zu, this library takes %zu to %zu (set it with HIB_INIT(struct %s))",
			  name, size, min, full, name);
}

int hib_abi_in(struct hib_image *img, const char *name, void *full,
	       size_t full_size, size_t min, const void *caller)
{
	int rc = hib_abi_size(img, name, caller, min, full_size);

	if (rc)
		return rc;
	memset(full, 0, full_size);
	memcpy(full, caller, caller_size(caller));
	return HIB_OK;
}

void hib_abi_out(void *caller, const void *full)
{
	size_t off = sizeof(size_t);

	/* the caller's size stays its own: full's may be anything */
	memcpy((char *)caller + off, (const char *)full + off, caller_size(caller) - off);
}
