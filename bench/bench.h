/* SPDX-License-Identifier: GPL-2.0-only */
/* What the micro-benchmarks share: CPU time of the thread, a trace file mapped in memory. */
#ifndef LH_BENCH_H
#define LH_BENCH_H

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static inline uint64_t cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

/* Return: path's bytes mapped and faulted in (*len of them), or NULL (said on stderr). */
static inline char *map_file(const char *path, size_t *len)
{
	struct stat st;
	char *buf;
	int fd;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st) < 0) {
		fprintf(stderr, "cannot open '%s': %s\n", path, strerror(errno));
		return NULL;
	}
	buf = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE | MAP_POPULATE, fd, 0);
	close(fd);
	if (buf == MAP_FAILED) {
		fprintf(stderr, "cannot map '%s': %s\n", path, strerror(errno));
		return NULL;
	}
	*len = (size_t)st.st_size;
	return buf;
}

#endif /* LH_BENCH_H */
