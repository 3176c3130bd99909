// SPDX-License-Identifier: GPL-2.0-only
/*
 * A benchmark corpus of latency snapshots whose function names are a real kernel's, drawn with
 * a Zipf distribution (a few hot paths, a long tail), as a long soak on one kernel produces:
 * unlike bench/parse-corpus.sh, whose few templates repeat the same names, most lines here are
 * a pair of names the rule matcher has not seen in that order before, and the tail keeps
 * bringing names it has never seen.
 *
 *   bench/out/zipf-corpus SYMBOLS OUT SIZE_MB [SEED]
 *
 * SYMBOLS holds one function name per line (bench/zipf-corpus.sh extracts the text symbols of
 * /proc/kallsyms, or of the test kernel's System.map). The output is deterministic for the
 * same SYMBOLS, SIZE_MB and SEED: 6.x latency layout with function-trace on (irqsoff,
 * preemptoff, preemptirqsoff with "name <-parent" lines and a stack; wakeup_rt and wakeup with
 * their '+'/'==>' lines), 20 to 4000 entries per snapshot (log-uniform).
 */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ZIPF_S		1.0	/* exponent: weight of rank k is 1 / k^s */
#define NR_CPUS		8
#define LH_ARRAY(a)	(sizeof(a) / sizeof((a)[0]))

static uint64_t rng_state;

/* splitmix64: small, fast, and the same sequence on every machine */
static uint64_t rnd(void)
{
	uint64_t z = (rng_state += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static double rnd01(void)
{
	return (double)(rnd() >> 11) / (double)(1ULL << 53);
}

static unsigned long rnd_below(unsigned long n)
{
	return (unsigned long)(rnd() % n);
}

struct zipf {
	char	**names;
	double	*cum;	/* cum[k]: weight of ranks 0..k */
	size_t	nr;
};

static const char *zipf_draw(const struct zipf *z)
{
	double u = rnd01() * z->cum[z->nr - 1];
	size_t lo = 0, hi = z->nr - 1;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (z->cum[mid] < u)
			lo = mid + 1;
		else
			hi = mid;
	}
	return z->names[lo];
}

static int load_symbols(const char *path, struct zipf *z)
{
	size_t alloc = 0, i;
	char line[1024];
	double sum = 0;
	FILE *f = fopen(path, "r");

	if (!f) {
		fprintf(stderr, "zipf-corpus: cannot open '%s': %s\n", path, strerror(errno));
		return -1;
	}
	while (fgets(line, sizeof(line), f)) {
		size_t n = strcspn(line, " \t\r\n");

		if (!n)
			continue;
		line[n] = '\0';
		if (z->nr == alloc) {
			alloc = alloc ? alloc * 2 : 4096;
			z->names = realloc(z->names, alloc * sizeof(*z->names));
			if (!z->names)
				abort();
		}
		z->names[z->nr] = strdup(line);
		if (!z->names[z->nr++])
			abort();
	}
	fclose(f);
	if (z->nr < 100) {
		fprintf(stderr, "zipf-corpus: '%s' has %zu names; want a kernel's symbol table\n",
			path, z->nr);
		return -1;
	}
	/* ranks are a shuffle of the table, so that hot names are not alphabetical */
	for (i = z->nr - 1; i > 0; i--) {
		size_t j = rnd_below(i + 1);
		char *t = z->names[i];

		z->names[i] = z->names[j];
		z->names[j] = t;
	}
	z->cum = malloc(z->nr * sizeof(*z->cum));
	if (!z->cum)
		abort();
	for (i = 0; i < z->nr; i++) {
		sum += 1.0 / pow((double)(i + 1), ZIPF_S);
		z->cum[i] = sum;
	}
	return 0;
}

static const char *const tasks[] = {
	"kworker/u16:3", "ksoftirqd/0", "irq/24-eth0", "cyclictest", "rcu_preempt", "systemd",
	"kswapd0", "fio", "stress-ng", "migration/1", "<idle>", "sshd", "jbd2/sda1-8", "dd",
	"Xorg", "kcompactd0", "irq/42-nvme0q1", "gmain",
};

static const char *const models[] = { "preempt", "preempt_rt", "desktop", "server" };

/* The 6.x latency-format context columns: "%8.8s-%-7d %3d" + flags + " %4lluus%c: " */
static void context(FILE *out, const char *comm, int pid, int cpu, const char *flags,
		    unsigned long long us, char mark)
{
	fprintf(out, "%8.8s-%-7d %3d%s %4lluus%c: ", comm, pid, cpu, flags, us, mark);
}

static void header(FILE *out, const char *tracer, unsigned long long lat, unsigned long n,
		   int cpu, const char *comm, int pid, const char *start, const char *end)
{
	fprintf(out, "# tracer: %s\n#\n# %s latency trace v1.1.5 on 6.1.0-zipf\n"
		"# --------------------------------------------------------------------\n"
		"# latency: %llu us, #%lu/%lu, CPU#%d | (M:%s VP:0, KP:0, SP:0 HP:0 #P:%d)\n"
		"#    -----------------\n"
		"#    | task: %s-%d (uid:0 nice:0 policy:%d rt_prio:%d)\n"
		"#    -----------------\n", tracer, tracer, lat, n, n, cpu,
		models[rnd_below(LH_ARRAY(models))], NR_CPUS, comm, pid, start ? 0 : 1,
		start ? 0 : 50);
	if (start)
		fprintf(out, "#  => started at: %s\n#  => ended at:   %s\n#\n", start, end);
	fputs("#\n"
	      "#                    _------=> CPU#\n"
	      "#                   / _-----=> irqs-off/BH-disabled\n"
	      "#                  | / _----=> need-resched\n"
	      "#                  || / _---=> hardirq/softirq\n"
	      "#                  ||| / _--=> preempt-depth\n"
	      "#                  |||| / _-=> migrate-disable\n"
	      "#                  ||||| /     delay\n"
	      "#  cmd     pid     |||||| time  |   caller\n"
	      "#     \\   /        ||||||  \\    |    /\n", out);
}

static size_t snapshot(FILE *out, const struct zipf *z)
{
	static const char *const flags[] = { "d....", "d..1.", "d..2.", "dN.1.", "d.h1.", "d.s2." };
	static const char *const tracers[] = {
		"irqsoff", "irqsoff", "irqsoff", "irqsoff", "irqsoff", "irqsoff", "irqsoff",
		"preemptirqsoff", "preemptirqsoff", "preemptirqsoff", "preemptirqsoff",
		"preemptirqsoff", "preemptirqsoff", "preemptoff", "preemptoff", "preemptoff",
		"wakeup_rt", "wakeup_rt", "wakeup_rt", "wakeup",
	};
	const char *tracer = tracers[rnd_below(LH_ARRAY(tracers))];
	int wakeup = !strncmp(tracer, "wakeup", 6);
	unsigned long n = (unsigned long)exp(log(20) + rnd01() * (log(4000) - log(20)));
	const char *comm = tasks[rnd_below(LH_ARRAY(tasks))];
	int pid = 1 + (int)rnd_below(40000), cpu = (int)rnd_below(NR_CPUS), i, frames;
	const char *start = zipf_draw(z), *end = zipf_draw(z);
	unsigned long long us = 0, lat;
	long before = ftell(out);
	unsigned long k, lines = n - 1;	/* the last entry is the stack trace */

	lat = n * (1 + rnd_below(4)) + rnd_below(50);
	header(out, tracer, lat, n, cpu, comm, pid, wakeup ? NULL : start, end);
	if (wakeup) {
		context(out, "stress-n", 4000 + pid % 1000, cpu, "dNh5.", 0, ' ');
		fprintf(out, "   %5d:120:R   + [%03d]   %5d: 49:R %s\n", 4000 + pid % 1000, cpu,
			pid, comm);
		lines -= 2;
	}
	for (k = 0; k < lines; k++) {
		context(out, wakeup ? "stress-n" : comm, wakeup ? 4000 + pid % 1000 : pid, cpu,
			flags[rnd_below(LH_ARRAY(flags))], us, k + 1 == lines ? '!' : ' ');
		if (!wakeup && k + 1 == lines)
			fprintf(out, "tracer_hardirqs_on <-%s\n", end);
		else if (!wakeup && !k)
			fprintf(out, "%s\n", start);
		else
			fprintf(out, "%s <-%s\n", zipf_draw(z), zipf_draw(z));
		us += rnd_below(4) ? 0 : 1 + rnd_below(3);
	}
	if (wakeup) {
		context(out, "stress-n", 4000 + pid % 1000, cpu, "d..3.", lat, ' ');
		fprintf(out, "   %5d:120:R ==> [%03d]   %5d: 49:R %s\n", 4000 + pid % 1000, cpu,
			pid, comm);
	}
	context(out, wakeup ? "stress-n" : comm, wakeup ? 4000 + pid % 1000 : pid, cpu, "d..1.",
		lat + 5, ' ');
	fputs("<stack trace>\n", out);
	frames = 6 + (int)rnd_below(12);
	for (i = 0; i < frames; i++)
		fprintf(out, " => %s\n", zipf_draw(z));
	return (size_t)(ftell(out) - before);
}

int main(int argc, char **argv)
{
	struct zipf z = { 0 };
	unsigned long long limit, total = 0;
	unsigned long snapshots = 0;
	FILE *out;

	if (argc < 4) {
		fprintf(stderr, "usage: %s SYMBOLS OUT SIZE_MB [SEED]\n", argv[0]);
		return 1;
	}
	rng_state = argc > 4 ? strtoull(argv[4], NULL, 0) : 20261201;
	limit = strtoull(argv[3], NULL, 10) << 20;
	if (load_symbols(argv[1], &z))
		return 1;
	out = fopen(argv[2], "w");
	if (!out) {
		fprintf(stderr, "zipf-corpus: cannot create '%s': %s\n", argv[2], strerror(errno));
		return 1;
	}
	while (total < limit) {
		total += snapshot(out, &z);
		snapshots++;
	}
	if (fclose(out)) {
		fprintf(stderr, "zipf-corpus: cannot write '%s': %s\n", argv[2], strerror(errno));
		return 1;
	}
	fprintf(stderr, "zipf-corpus: %s: %llu bytes, %lu snapshots, %zu names (Zipf s=%.1f)\n",
		argv[2], total, snapshots, z.nr, ZIPF_S);
	return 0;
}
