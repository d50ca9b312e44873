/* SPDX-License-Identifier: GPL-2.0-or-later */
/* memcpy-rate BYTES - the machine's memcpy rate over a 64 MiB working set,
 * the ceiling for anything that touches every byte of a stream once. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

int main(int argc, char **argv)
{
	size_t set = 64u << 20, total = argc > 1 ? strtoull(argv[1], NULL, 0) : (1ull << 32), done;
	char *a = malloc(set), *b = malloc(set);
	struct timespec t0, t1;
	double s;

	if (!a || !b)
		return 1;
	memset(a, 1, set);
	memset(b, 2, set);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (done = 0; done < total; done += set)
		memcpy((done / set) & 1 ? a : b, (done / set) & 1 ? b : a, set);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	s = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
	printf("%.6f\n", s);
	return a[12345] == 7;
}
