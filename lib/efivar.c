/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * efivar.c - systemd's HibernateLocation EFI variable, as efivarfs gives
 * it (/sys/firmware/efi/efivars/HibernateLocation-<systemd vendor GUID>):
 * a u32 of attributes, then a flat JSON object that systemd-sleep writes
 * (src/sleep/sleep.c) and systemd-hibernate-resume reads
 * (src/hibernate-resume/hibernate-resume-config.c): "uuid" and "offset"
 * mandatory, "kernelVersion", "osReleaseId", ... optional strings. The
 * JSON is UTF-16LE with a NUL (efi_set_variable_string()), as a real
 * systemd 257 wrote and read it under OVMF (fixtures/check-doctor-systemd.sh);
 * efi_get_variable_string() turns it back into UTF-8 before parsing.
 * Only that object is read: one level, strings and unsigned integers;
 * any other value is skipped only where it is a literal.
 */
#include "targetP.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define EFIVAR_MAX (64u << 10)

struct jp {
	const char *p, *end;
};

static void ws(struct jp *j)
{
	while (j->p < j->end && (*j->p == ' ' || *j->p == '\t' || *j->p == '\n' || *j->p == '\r'))
		j->p++;
}

/* a JSON string into buf (escapes other than \uXXXX taken as the char;
 * \u of non-ASCII stored as '?', none of the fields read needs them) */
static bool jstring(struct jp *j, char *buf, size_t cap)
{
	size_t n = 0;

	if (j->p >= j->end || *j->p != '"')
		return false;
	for (j->p++; j->p < j->end && *j->p != '"'; j->p++) {
		char ch = *j->p;

		if ((unsigned char)ch < 0x20)
			return false;
		if (ch == '\\') {
			if (++j->p >= j->end)
				return false;
			ch = *j->p;
			if (ch == 'u') {
				if (j->end - j->p < 5)
					return false;
				j->p += 4;
				ch = '?';
			} else if (ch == 'n' || ch == 't' || ch == 'r' || ch == 'b' || ch == 'f') {
				ch = ' ';
			}
		}
		if (n + 1 < cap)
			buf[n++] = ch;
	}
	if (j->p >= j->end)
		return false;
	j->p++;
	buf[n] = 0;
	return true;
}

static bool juint(struct jp *j, uint64_t *v)
{
	uint64_t x = 0;
	const char *s = j->p;

	while (j->p < j->end && *j->p >= '0' && *j->p <= '9') {
		unsigned d = (unsigned)(*j->p - '0');

		if (x > (UINT64_MAX - d) / 10)
			return false;
		x = x * 10 + d;
		j->p++;
	}
	*v = x;
	return j->p > s && (j->p == j->end || !strchr(".eE", *j->p));
}

void hib_efi_uuid_str(const unsigned char u[16], char out[37])
{
	snprintf(out, 37,
		 "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x",
		 u[0], u[1], u[2], u[3], u[4], u[5], u[6], u[7], u[8], u[9], u[10], u[11],
		 u[12], u[13], u[14], u[15]);
}

static bool hexuuid(const char *s, unsigned char out[16])
{
	size_t i, k = 0;

	/* sd_id128 takes the dashed form and the 32-digit one */
	for (i = 0; s[i] && k < 32; i++) {
		int d;

		if (s[i] == '-' && (strlen(s) == 36))
			continue;
		if (s[i] >= '0' && s[i] <= '9') d = s[i] - '0';
		else if (s[i] >= 'a' && s[i] <= 'f') d = s[i] - 'a' + 10;
		else if (s[i] >= 'A' && s[i] <= 'F') d = s[i] - 'A' + 10;
		else return false;
		if (k % 2)
			out[k / 2] |= (unsigned char)d;
		else
			out[k / 2] = (unsigned char)(d << 4);
		k++;
	}
	return k == 32 && !s[i];
}

/* What systemd makes of what hibimg cannot use: sd_json_parse() fails
 * (HIB_EFI_NOT_JSON) or sd_json_dispatch() does ("uuid", "offset" missing
 * or not of their type: HIB_EFI_BAD_FIELD). Both stop systemd-hibernate-
 * resume before it looks at resume=. */
#define REJECT(cls, ...) (t->info.efi_status = (cls), hib_tgt_seterr(t, HIB_ERR_DAMAGED, __VA_ARGS__))

static int parse(struct hib_target *t, const char *path, const char *s, size_t len)
{
	struct hib_target_info *in = &t->info;
	struct jp j = { s, s + len };
	bool have_uuid = false, have_off = false;
	char key[64], val[256];

	ws(&j);
	if (j.p >= j.end || *j.p != '{')
		return REJECT(HIB_EFI_NOT_JSON, "%s: not a JSON object", path);
	j.p++;
	ws(&j);
	if (j.p < j.end && *j.p == '}')
		goto close;
	for (;;) {
		ws(&j);
		if (!jstring(&j, key, sizeof(key)))
			return REJECT(HIB_EFI_NOT_JSON, "%s: not JSON (a key expected at byte %td)",
					      path, j.p - s);
		ws(&j);
		if (j.p >= j.end || *j.p != ':')
			return REJECT(HIB_EFI_NOT_JSON, "%s: not JSON (':' expected after \"%s\")",
					      path, key);
		j.p++;
		ws(&j);
		if (!strcmp(key, "offset")) {
			uint64_t v;
			bool quoted = j.p < j.end && *j.p == '"';

			/* json_dispatch_uint64 takes a number or a decimal string */
			if (quoted) {
				struct jp q;

				if (!jstring(&j, val, sizeof(val)))
					return REJECT(HIB_EFI_NOT_JSON, "%s: \"offset\": not a JSON string", path);
				q.p = val;
				q.end = val + strlen(val);
				if (!juint(&q, &v) || q.p != q.end)
					return REJECT(HIB_EFI_BAD_FIELD,
							      "%s: \"offset\": \"%s\" is not an unsigned integer", path, val);
			} else if (!juint(&j, &v)) {
				return REJECT(HIB_EFI_BAD_FIELD, "%s: \"offset\" is not an unsigned integer", path);
			}
			in->efi_offset = v;
			have_off = true;
		} else if (j.p < j.end && *j.p == '"') {
			if (!jstring(&j, val, sizeof(val)))
				return REJECT(HIB_EFI_NOT_JSON, "%s: \"%s\": not a JSON string", path, key);
			if (!strcmp(key, "uuid")) {
				if (!hexuuid(val, in->efi_uuid))
					return REJECT(HIB_EFI_BAD_FIELD, "%s: \"uuid\": \"%s\" is not a UUID",
							      path, val);
				have_uuid = true;
			} else if (!strcmp(key, "kernelVersion")) {
				snprintf(in->efi_kernel, sizeof(in->efi_kernel), "%.64s", val);
			} else if (!strcmp(key, "osReleaseId")) {
				snprintf(in->efi_os_id, sizeof(in->efi_os_id), "%.64s", val);
			} else if (!strcmp(key, "osReleaseImageId")) {
				snprintf(in->efi_os_image_id, sizeof(in->efi_os_image_id), "%.64s", val);
			} else if (!strcmp(key, "osReleaseVersionId")) {
				snprintf(in->efi_os_version_id, sizeof(in->efi_os_version_id), "%.64s", val);
			} else if (!strcmp(key, "osReleaseImageVersion")) {
				snprintf(in->efi_os_image_version, sizeof(in->efi_os_image_version), "%.64s", val);
			}
		} else if (!strcmp(key, "uuid")) {
			return REJECT(HIB_EFI_BAD_FIELD, "%s: \"uuid\" is not a string", path);
		} else {
			uint64_t v;

			/* another field's number or literal; nothing nested */
			if (j.p < j.end && *j.p >= '0' && *j.p <= '9')
				(void)juint(&j, &v);
			else if (j.end - j.p >= 4 && (!memcmp(j.p, "true", 4) || !memcmp(j.p, "null", 4)))
				j.p += 4;
			else if (j.end - j.p >= 5 && !memcmp(j.p, "false", 5))
				j.p += 5;
			else
				return hib_tgt_seterr(t, HIB_ERR_DAMAGED, "%s: \"%s\": a value this does not read",
						      path, key);
		}
		ws(&j);
		if (j.p < j.end && *j.p == ',') {
			j.p++;
			continue;
		}
		if (j.p < j.end && *j.p == '}')
			break;
		return REJECT(HIB_EFI_NOT_JSON, "%s: not JSON (',' or '}' expected at byte %td)",
				      path, j.p - s);
	}
close:
	j.p++;
	ws(&j);
	if (j.p < j.end)
		return REJECT(HIB_EFI_NOT_JSON, "%s: not JSON (data after the object)", path);
	if (!have_uuid || !have_off) {
		/* systemd names it with where the object starts; only 1:1 seen */
		if (s[0] == '{')
			snprintf(in->efi_missing, sizeof(in->efi_missing), "%s", have_uuid ? "offset" : "uuid");
		return REJECT(HIB_EFI_BAD_FIELD, "%s: no \"%s\", which systemd requires", path,
				      have_uuid ? "offset" : "uuid");
	}
	return HIB_OK;
}

/* utf16_to_utf8() as systemd has it (src/basic/utf8.c): units little-endian,
 * an odd last byte dropped, a surrogate without its pair skipped; the C
 * string it gives ends at the first NUL unit. out holds 2 * len + 1. */
static size_t utf16le_to_utf8(const unsigned char *s, size_t len, char *out)
{
	size_t i, n = 0;

	for (i = 0; i + 1 < len; i += 2) {
		uint32_t c = (uint32_t)s[i] | (uint32_t)s[i + 1] << 8;

		if (!c)
			break;
		if (c >= 0xd800 && c <= 0xdfff) {
			uint32_t w2;

			if (c >= 0xdc00 || i + 3 >= len)
				continue;
			w2 = (uint32_t)s[i + 2] | (uint32_t)s[i + 3] << 8;
			if (w2 < 0xdc00 || w2 > 0xdfff)
				continue;
			c = ((c - 0xd800) << 10) + (w2 - 0xdc00) + 0x10000;
			i += 2;
		}
		if (c < 0x80) {
			out[n++] = (char)c;
		} else if (c < 0x800) {
			out[n++] = (char)(0xc0 | c >> 6);
			out[n++] = (char)(0x80 | (c & 0x3f));
		} else if (c < 0x10000) {
			out[n++] = (char)(0xe0 | c >> 12);
			out[n++] = (char)(0x80 | ((c >> 6) & 0x3f));
			out[n++] = (char)(0x80 | (c & 0x3f));
		} else {
			out[n++] = (char)(0xf0 | c >> 18);
			out[n++] = (char)(0x80 | ((c >> 12) & 0x3f));
			out[n++] = (char)(0x80 | ((c >> 6) & 0x3f));
			out[n++] = (char)(0x80 | (c & 0x3f));
		}
	}
	out[n] = 0;
	return n;
}

int hib_target_set_efivar(struct hib_target *t, const char *path)
{
	unsigned char *b;
	char *u8 = NULL;
	size_t len;
	int rc;

	t->info.efi_status = HIB_EFI_UNKNOWN;
	t->info.efi_missing[0] = 0;
	rc = hib_tgt_slurp(t, path, EFIVAR_MAX, &b, &len);
	if (rc)
		goto problem;
	if (len <= 4) {
		rc = hib_tgt_seterr(t, HIB_ERR_DAMAGED,
				    "%s: %zu bytes, an efivarfs file holds 4 of attributes and then the data",
				    path, len);
	} else if (!(u8 = malloc(2 * len + 1))) {
		rc = hib_tgt_seterr(t, HIB_ERR_NOMEM, "%s: out of memory", path);
	} else {
		rc = parse(t, path, u8, utf16le_to_utf8(b + 4, len - 4, u8));
		if (!rc) {
			t->info.have_efivar = 1;
			t->info.efi_status = HIB_EFI_READ;
		} else
			t->info.efi_kernel[0] = t->info.efi_os_id[0] = t->info.efi_os_image_id[0] =
				t->info.efi_os_version_id[0] = t->info.efi_os_image_version[0] = 0;
	}
	free(u8);
	free(b);
problem:
	if (rc)
		hib_tgt_problem(t, HIB_TIN_EFIVAR);
	return rc;
}
