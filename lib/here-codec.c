/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * here-codec.c - whether the running kernel can get the decompressor an
 * image names, where its config makes it a module (hibimg check --here).
 * 6.9+ software_resume() asks crypto_has_comp(); crypto_alg_mod_lookup()
 * finds an algorithm already registered (/proc/crypto lists it), else
 * request_module("crypto-%s") runs the usermode helper at the path
 * /proc/sys/kernel/modprobe names, which finds the module by the alias in
 * modules.alias and its file and deps in modules.dep. A kernel whose
 * modprobe or module is missing prints "%s compression is not available".
 * Every path is under root, so a copied tree can stand in.
 */
#include "targetP.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The whole text of root/rel, NULL (nothing noted) where it is not there;
 * a file there but unreadable is noted against the boot. */
static char *text(struct hib_target *t, const char *root, const char *rel)
{
	char path[4096];
	unsigned char *b;
	size_t len;

	if ((size_t)snprintf(path, sizeof(path), "%s/%s", root, rel) >= sizeof(path) ||
	    access(path, F_OK))
		return NULL;
	if (hib_tgt_slurp(t, path, HIB_TGT_TEXT_MAX, &b, &len)) {
		hib_tgt_problem(t, HIB_TIN_BOOT);
		return NULL;
	}
	return (char *)b;
}

/* /proc/crypto: "name         : lz4" for each registered algorithm */
static bool registered(const char *crypto, const char *alg)
{
	const char *p;

	for (p = crypto; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL) {
		const char *q = p;

		if (strncmp(q, "name", 4))
			continue;
		for (q += 4; *q == ' ' || *q == '\t'; q++)
			;
		if (*q++ != ':')
			continue;
		while (*q == ' ' || *q == '\t')
			q++;
		if (!strncmp(q, alg, strlen(alg)) && (q[strlen(alg)] == '\n' || !q[strlen(alg)]))
			return true;
	}
	return false;
}

/* A line of modules.dep or modules.builtin whose module file is
 * NAME.ko (any directory, any of kmod's compressed suffixes) */
static bool lists_module(const char *list, const char *name)
{
	size_t n = strlen(name);
	const char *p;

	for (p = list; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL) {
		size_t len = strcspn(p, ":\n");
		const char *base = p, *s;

		for (s = p; s < p + len; s++)
			if (*s == '/')
				base = s + 1;
		if ((size_t)(p + len - base) >= n + 3 && !strncmp(base, name, n) &&
		    !strncmp(base + n, ".ko", 3)) {
			const char *ext = base + n + 3;
			size_t el = (size_t)(p + len - ext);

			if (!el || (el == 3 && !strncmp(ext, ".xz", 3)) ||
			    (el == 3 && !strncmp(ext, ".gz", 3)) || (el == 4 && !strncmp(ext, ".zst", 4)))
				return true;
		}
	}
	return false;
}

/* modules.alias: "alias crypto-lz4 lz4" */
static bool aliased(const char *aliases, const char *alias, const char *mod)
{
	char want[96];
	const char *p;
	size_t n = (size_t)snprintf(want, sizeof(want), "alias %s %s", alias, mod);

	for (p = aliases; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL)
		if (!strncmp(p, want, n) && (p[n] == '\n' || !p[n] || p[n] == ' '))
			return true;
	return false;
}

static void one(struct hib_target *t, const char *root, const char *rel, int comp,
		const char *crypto)
{
	/* the algorithm's name is its module's (crypto/lzo.ko, crypto/lz4.ko) */
	const char *alg = comp == HIB_COMP_LZ4 ? "lz4" : "lzo";
	struct hib_codec_here *h = &t->codec[comp];
	char relp[4096], helper[4096] = "", path[4096], alias[32];
	char *builtin, *dep, *al, *mp;

	if (registered(crypto, alg)) {
		h->state = HIB_CODEC_LOADED;
		snprintf(h->detail, sizeof(h->detail), "%s is registered (/proc/crypto)", alg);
		return;
	}
	snprintf(relp, sizeof(relp), "lib/modules/%s/modules.builtin", rel);
	builtin = text(t, root, relp);
	if (builtin && lists_module(builtin, alg)) {
		free(builtin);
		h->state = HIB_CODEC_BUILTIN;
		snprintf(h->detail, sizeof(h->detail), "%s.ko is built in (/lib/modules/%s/modules.builtin)",
			 alg, rel);
		return;
	}
	free(builtin);
	snprintf(relp, sizeof(relp), "lib/modules/%s/modules.dep", rel);
	dep = text(t, root, relp);
	if (!dep || !lists_module(dep, alg)) {
		free(dep);
		h->state = HIB_CODEC_NO_MODULE;
		snprintf(h->detail, sizeof(h->detail),
			 "%s is not registered (/proc/crypto) and no /lib/modules/%s/modules.dep names %s.ko",
			 alg, rel, alg);
		return;
	}
	free(dep);
	snprintf(relp, sizeof(relp), "lib/modules/%s/modules.alias", rel);
	snprintf(alias, sizeof(alias), "crypto-%s", alg);
	al = text(t, root, relp);
	if (!al || !aliased(al, alias, alg)) {
		free(al);
		h->state = HIB_CODEC_NO_MODULE;
		snprintf(h->detail, sizeof(h->detail),
			 "%s.ko is in modules.dep but no /lib/modules/%s/modules.alias maps %s to it (the name request_module() asks for)",
			 alg, rel, alias);
		return;
	}
	free(al);
	/* kernel/module/kmod.c: an empty modprobe_path disables request_module() */
	mp = text(t, root, "proc/sys/kernel/modprobe");
	if (mp) {
		snprintf(helper, sizeof(helper), "%.*s", (int)strcspn(mp, "\n"), mp);
		free(mp);
	} else {
		/* not mounted: the default the kernel starts with, its config's
		 * string (Kconfig's own default where it has none) */
		const char *v = hib_target_config(t, "CONFIG_MODPROBE_PATH");

		if (v && v[0] == '"')
			snprintf(helper, sizeof(helper), "%.*s", (int)strcspn(v + 1, "\""), v + 1);
		else
			snprintf(helper, sizeof(helper), "/sbin/modprobe");
	}
	if (!helper[0]) {
		h->state = HIB_CODEC_NO_MODPROBE;
		snprintf(h->detail, sizeof(h->detail),
			 "%s.ko is there but /proc/sys/kernel/modprobe is empty: request_module() is off", alg);
		return;
	}
	if ((size_t)snprintf(path, sizeof(path), "%s/%s", root, helper) >= sizeof(path) ||
	    access(path, X_OK)) {
		h->state = HIB_CODEC_NO_MODPROBE;
		snprintf(h->detail, sizeof(h->detail),
			 "%s.ko is there but no modprobe at %.200s (/proc/sys/kernel/modprobe) to load it", alg, helper);
		return;
	}
	h->state = HIB_CODEC_MODPROBE;
	snprintf(h->detail, sizeof(h->detail),
		 "%s.ko is in /lib/modules/%s (modules.dep, alias %s) and %.200s loads it", alg, rel, alias, helper);
}

void hib_here_codecs(struct hib_target *t, const char *root, const char *rel)
{
	char *crypto = text(t, root, "proc/crypto");

	/* without /proc/crypto this is no running kernel's tree: say nothing */
	if (!crypto)
		return;
	one(t, root, rel, HIB_COMP_LZO, crypto);
	one(t, root, rel, HIB_COMP_LZ4, crypto);
	free(crypto);
}
