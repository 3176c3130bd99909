// SPDX-License-Identifier: GPL-2.0-only
/*
 * trace.dat files through libtracecmd, the way 'trace-cmd report' reads a latency file:
 * open it, then tracecmd_latency_data_read() until it returns 0.
 *
 * libtracecmd runs in a child process that sends the text back through a pipe. It was not
 * written for hostile input: version 1.3 dies of a NULL pointer on a version 6 flyrecord cut
 * inside its CPU data, after printing "File possibly truncated..." on standard output (where
 * a report may be going); on other damaged files it allocates sizes read from the file (ASan
 * aborts on them) and leaks on its error paths. In a child, a crash is one more clear error,
 * and its standard output goes to /dev/null.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/wait.h>

#include <trace-cmd.h>

#include "tracedat.h"
#include "util.h"

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
};

static const char *const child_errors[] = {
	[CHILD_SETUP]		= "cannot hand it to libtracecmd",
	[CHILD_OPEN]		= "libtracecmd cannot read it (truncated, corrupt or of an unknown version)",
	[CHILD_NO_LATENCY]	= "no latency data in it, only a flyrecord of events (record with 'trace-cmd record -p irqsoff' or another latency tracer)",
	[CHILD_READ]		= "libtracecmd cannot read its latency data (truncated or corrupt)",
	[CHILD_PIPE]		= "its latency data could not be passed on",
};

/* Return: what the child's wait status says went wrong (static), or NULL when nothing. */
static const char *child_error(int status)
{
	int code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;

	if (!code)
		return NULL;
	if (WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL)
		return "libtracecmd was killed reading it";
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

/* The child: writes the latency text to out. Return: its exit status (enum child_status). */
static int child_read(int fd, const char *buf, size_t len, int out)
{
	struct tracecmd_input *handle;
	char *chunk = NULL;
	size_t chunk_size = 0;
	int dfd, r, ret = CHILD_OK;

	dfd = open("/dev/null", O_WRONLY);
	if (dfd < 0 || dup2(dfd, STDOUT_FILENO) < 0 || dup2(dfd, STDERR_FILENO) < 0)
		return CHILD_SETUP;
	close(dfd);
	dfd = open_copy(fd, buf, len);
	if (dfd < 0)
		return CHILD_SETUP;
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

int lh_tracedat_read_latency(int fd, const char *buf, size_t len, char **text, size_t *text_len,
			     const char **err)
{
	char *out = NULL;
	size_t alloc = 0;
	int pipefd[2], status, read_ret, read_errno;
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
	read_ret = lh_read_fd(pipefd[0], &out, &alloc, text_len, SIZE_MAX);
	read_errno = errno;
	close(pipefd[0]);
	do
		waited = waitpid(pid, &status, 0);
	while (waited < 0 && errno == EINTR);

	*err = waited < 0 ? strerror(errno) : child_error(status);
	if (!*err && read_ret)
		*err = strerror(read_errno);
	if (*err) {
		free(out);
		return -1;
	}
	*text = out;
	return 0;
}
