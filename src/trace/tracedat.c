// SPDX-License-Identifier: GPL-2.0-only
/*
 * trace.dat files through libtracecmd, the way 'trace-cmd report' reads a latency file:
 * open it, then tracecmd_latency_data_read() until it returns 0.
 *
 * libtracecmd runs in a child process that sends the text back through a pipe. It was not
 * written for hostile input: version 1.3 dies of a NULL pointer on a version 6 flyrecord cut
 * inside its CPU data, after printing "File possibly truncated..." on standard output (where
 * a report may be going); on other damaged files it allocates sizes read from the file (ASan
 * aborts on them), reads past its buffers and leaks on its error paths. In a child, a crash
 * is one more clear error, and its standard output goes to /dev/null. The child only reads a
 * file it is handed: it runs confined (lh_tracedat_confine()), and what it sends back is read
 * a piece at a time, at most LH_TRACE_TEXT_MAX bytes.
 */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>

#include <trace-cmd.h>

#include "parse.h"
#include "tracedat.h"
#include "util/util.h"

/*
 * Exported by libtracecmd.so.1 but declared only in trace-cmd's private header
 * (lib/trace-cmd/include/private/trace-cmd-private.h, not installed by libtracecmd-dev);
 * 'trace-cmd report' reads latency files with them. tracecmd_latency_data_read() returns
 * the bytes it put in *buf (a buffer it allocates and grows; the caller frees it), 0 at the
 * end of the data, -1 when the file has no latency data or it could not be read.
 */
int tracecmd_latency_data_read(struct tracecmd_input *handle, char **buf, size_t *size);
int tracecmd_get_file_state(struct tracecmd_input *handle);

/*
 * enum tracecmd_file_states in that header (libtracecmd 1.x): the state of a file whose
 * data is a flyrecord of events. Only used to choose the clearer of two error messages.
 */
#define TRACECMD_FILE_CPU_FLYRECORD	11

/* "\027\010Dtracing": the first bytes of every trace.dat (TRACECMD_MAGIC, then "tracing"). */
static const char tracedat_magic[] = { 0x17, 0x08, 0x44, 't', 'r', 'a', 'c', 'i', 'n', 'g' };

/*
 * What the child may use: address space beyond what it inherits from this process (a file
 * of a few MiB needs a few tens; libtracecmd 1.3 allocates 2-4 GB on some damaged ones) and
 * CPU seconds (a file that took longer is damaged, or an attack). No wall-clock limit: the
 * child reads a regular or memory file and can only wait on the pipe to this process, so
 * its wall time beyond its CPU time is this process parsing (a large text, a slow board) or
 * stopped (Ctrl-Z, a suspend), never libtracecmd's doing.
 */
#define CHILD_AS_BUDGET		(1024UL << 20)
#define CHILD_CPU_SECONDS	30
#define NOBODY			65534	/* the overflow uid and gid, whatever /etc/passwd says */
#define NR_OPEN_DEFAULT		(1U << 20)	/* the kernel's fs.nr_open unless raised */
#define TEXT_PIECE		(256 << 10)	/* the latency text is read this much at a time */

/*
 * How the child ends: its exit status, clear of the 1 that exit(1) and the sanitizers use.
 * Any other end (a signal, 1) is a crash.
 */
enum child_status {
	CHILD_OK,
	CHILD_SETUP = 10,	/* the file could not be handed to libtracecmd */
	CHILD_OPEN,		/* libtracecmd cannot open it */
	CHILD_NO_LATENCY,	/* a flyrecord of events */
	CHILD_READ,		/* latency data, but not readable to its end */
	CHILD_PIPE,		/* the parent stopped reading */
	CHILD_CONFINE,		/* its limits could not be set */
	CHILD_PRIVILEGES,	/* run as root, it could not become nobody */
};

static const char *const child_errors[] = {
	[CHILD_SETUP]		= "cannot hand it to libtracecmd",
	[CHILD_OPEN]		= "libtracecmd cannot read it (truncated, corrupt or of an unknown version)",
	[CHILD_NO_LATENCY]	= "no latency data in it, only a flyrecord of events (record with 'trace-cmd record -p irqsoff' or another latency tracer)",
	[CHILD_READ]		= "libtracecmd cannot read its latency data (truncated or corrupt)",
	[CHILD_PIPE]		= "its latency data could not be passed on",
	[CHILD_CONFINE]		= "cannot confine libtracecmd's process (resource limits)",
	[CHILD_PRIVILEGES]	= "cannot run libtracecmd as user nobody (uid 65534), as lathound does when run as root: a user namespace that does not map that uid, or no CAP_SETUID/CAP_SETGID (a container); analyze needs no privilege: run it as an ordinary user",
};

/* Return: what the child's wait status says went wrong (static), or NULL when nothing. */
static const char *child_error(int status)
{
	int code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;

	if (!code)
		return NULL;
	if (WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL)
		return "libtracecmd was killed reading it";
	if (WIFSIGNALED(status) && WTERMSIG(status) == SIGXCPU)
		return "libtracecmd used more than its CPU time limit reading it (a corrupt file)";
	if (code > 0 && (size_t)code < LH_ARRAY_SIZE(child_errors) && child_errors[code])
		return child_errors[code];
	return "libtracecmd crashed reading it (a corrupt file)";
}

bool lh_tracedat_detect(const void *buf, size_t len)
{
	return len >= sizeof(tracedat_magic) &&
	       !memcmp(buf, tracedat_magic, sizeof(tracedat_magic));
}

/*
 * A descriptor of the file for libtracecmd, which seeks around in it and closes what it is
 * given: a duplicate of fd at offset 0, or a memory file with a copy of buf[0..len) when fd
 * cannot seek. Return: the descriptor, or -1 with errno.
 */
static int open_copy(int fd, const char *buf, size_t len)
{
	int dfd;

	if (lseek(fd, 0, SEEK_SET) == 0)
		return fcntl(fd, F_DUPFD_CLOEXEC, 0);
	if (errno != ESPIPE)
		return -1;
	dfd = memfd_create("lathound-trace.dat", MFD_CLOEXEC);
	if (dfd < 0)
		return -1;
	if (lh_write_fd(dfd, buf, len) || lseek(dfd, 0, SEEK_SET)) {
		close(dfd);
		return -1;
	}
	return dfd;
}

/*
 * Closes the descriptors in [lo, hi]: close_range(), or one at a time up to the descriptor
 * limit on kernels before 5.9 (boards run long-term kernels such as 5.4), where it is ENOSYS.
 * Return: 0, or -1 with errno.
 */
static int close_from(unsigned int lo, unsigned int hi)
{
	struct rlimit rl;
	unsigned int fd;

	if (!close_range(lo, hi, 0))
		return 0;
	if (errno != ENOSYS || getrlimit(RLIMIT_NOFILE, &rl))
		return -1;
	/* no descriptor is above the hard limit, which the kernel keeps under fs.nr_open */
	if (rl.rlim_max == RLIM_INFINITY)
		rl.rlim_max = NR_OPEN_DEFAULT;
	if (hi >= rl.rlim_max)
		hi = (unsigned int)rl.rlim_max - 1;
	for (fd = lo; fd <= hi; fd++)
		close((int)fd);
	return 0;
}

/* Closes every descriptor above standard error but a and b. Return: 0, or -1 with errno. */
static int close_others(int a, int b)
{
	int lo = a < b ? a : b, hi = a < b ? b : a;

	if (lo > 3 && close_from(3, (unsigned int)lo - 1))
		return -1;
	if (hi > lo + 1 && close_from((unsigned int)lo + 1, (unsigned int)hi - 1))
		return -1;
	return close_from((unsigned int)hi + 1, ~0U);
}

/* Sets RLIMIT_AS to the address space the process has now plus budget. Return: 0 or -1. */
static int limit_address_space(unsigned long budget)
{
#if defined(__SANITIZE_ADDRESS__)
	/* ASan reserves terabytes of shadow memory: a limit would stop it, not libtracecmd */
	return 0;
#else
	unsigned long pages;
	uint64_t bytes;
	struct rlimit rl;
	FILE *f = fopen("/proc/self/statm", "re");
	int n;

	if (!f)
		return -1;
	n = fscanf(f, "%lu", &pages);
	fclose(f);
	if (n != 1)
		return -1;
	bytes = (uint64_t)pages * (uint64_t)sysconf(_SC_PAGESIZE) + budget;
	/* a 32-bit rlim_t: beyond it, the address space itself is the limit */
	rl.rlim_cur = rl.rlim_max = bytes < (uint64_t)RLIM_INFINITY ? (rlim_t)bytes : RLIM_INFINITY;
	return setrlimit(RLIMIT_AS, &rl);
#endif
}

int lh_tracedat_confine(int in, int out)
{
	struct rlimit cpu = { CHILD_CPU_SECONDS, CHILD_CPU_SECONDS + 1 }, none = { 0, 0 };
	sigset_t limits;

	/* the CPU limit ends it by this signal, whatever this process did with it */
	sigemptyset(&limits);
	sigaddset(&limits, SIGXCPU);
	signal(SIGXCPU, SIG_DFL);
	if (sigprocmask(SIG_UNBLOCK, &limits, NULL))
		return -1;
	if (close_others(in, out) || limit_address_space(CHILD_AS_BUDGET) ||
	    setrlimit(RLIMIT_CPU, &cpu) || setrlimit(RLIMIT_CORE, &none))
		return -1;
	if (!geteuid() || !getuid()) {
		if (setgroups(0, NULL) || setresgid(NOBODY, NOBODY, NOBODY) ||
		    setresuid(NOBODY, NOBODY, NOBODY))
			return -2;
	}
	if (prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) || prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0))
		return -1;
	return 0;
}

/* The child: writes the latency text to out. Return: its exit status (enum child_status). */
static int child_read(int fd, const char *buf, size_t len, int out)
{
	struct tracecmd_input *handle;
	char *chunk = NULL;
	size_t chunk_size = 0;
	int dfd, nfd, r, ret = CHILD_OK;

	dfd = open_copy(fd, buf, len);
	nfd = open("/dev/null", O_RDWR);
	if (dfd < 0 || nfd < 0 || dup2(nfd, STDIN_FILENO) < 0 || dup2(nfd, STDOUT_FILENO) < 0 ||
	    dup2(nfd, STDERR_FILENO) < 0)
		return CHILD_SETUP;
	r = lh_tracedat_confine(dfd, out);
	if (r)
		return r == -2 ? CHILD_PRIVILEGES : CHILD_CONFINE;
	/* No plugins: they only format events, and would load code named by the environment. */
	handle = tracecmd_open_fd(dfd, TRACECMD_FL_LOAD_NO_PLUGINS);
	if (!handle)
		return CHILD_OPEN;
	r = tracecmd_latency_data_read(handle, &chunk, &chunk_size);
	if (r < 0)
		ret = tracecmd_get_file_state(handle) == TRACECMD_FILE_CPU_FLYRECORD ?
		      CHILD_NO_LATENCY : CHILD_READ;
	while (r > 0 && ret == CHILD_OK) {
		if (lh_write_fd(out, chunk, (size_t)r))
			ret = CHILD_PIPE;
		else
			r = tracecmd_latency_data_read(handle, &chunk, &chunk_size);
	}
	if (r < 0 && ret == CHILD_OK)
		ret = CHILD_READ;
	free(chunk);
	tracecmd_close(handle);
	return ret;
}

/*
 * Reads the child's output from fd a piece at a time into fn, at most LH_TRACE_TEXT_MAX
 * bytes. Return: 0; 1 when fn asked to stop; -1 with *err set.
 */
static int pass_text(int fd, lh_tracedat_text_fn fn, void *arg, const char **err)
{
	char *buf = lh_xmalloc(TEXT_PIECE);
	size_t total = 0;
	ssize_t n;
	int ret = 0;

	for (;;) {
		n = read(fd, buf, TEXT_PIECE);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			if (n < 0) {
				*err = strerror(errno);
				ret = -1;
			}
			break;
		}
		total += (size_t)n;
		if (total > LH_TRACE_TEXT_MAX) {
			*err = "its latency data is larger than 256 MiB (a tracefs trace file never is)";
			ret = -1;
			break;
		}
		if (fn(buf, (size_t)n, arg)) {
			ret = 1;
			break;
		}
	}
	free(buf);
	return ret;
}

int lh_tracedat_read_latency(int fd, const char *buf, size_t len, lh_tracedat_text_fn fn,
			     void *arg, const char **err)
{
	const char *why = NULL;
	int pipefd[2], status, passed;
	pid_t pid, waited;

	if (pipe2(pipefd, O_CLOEXEC)) {
		*err = strerror(errno);
		return -1;
	}
	pid = fork();
	if (pid < 0) {
		*err = strerror(errno);
		close(pipefd[0]);
		close(pipefd[1]);
		return -1;
	}
	if (!pid) {
		close(pipefd[0]);
		_exit(child_read(fd, buf, len, pipefd[1]));
	}
	close(pipefd[1]);
	passed = pass_text(pipefd[0], fn, arg, &why);
	if (passed)	/* it need not go on: the text was refused, or is not wanted */
		kill(pid, SIGKILL);
	close(pipefd[0]);
	do
		waited = waitpid(pid, &status, 0);
	while (waited < 0 && errno == EINTR);

	if (passed < 0) {
		*err = why;
		return -1;
	}
	if (passed > 0)
		return 0;
	*err = waited < 0 ? strerror(errno) : child_error(status);
	return *err ? -1 : 0;
}
