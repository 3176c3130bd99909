// SPDX-License-Identifier: GPL-2.0-only
/*
 * The rules' multi-pattern prefilter: every line rule's pattern in one Vectorscan database,
 * compiled with HS_FLAG_PREFILTER | HS_FLAG_SINGLEMATCH, so that a line new to the cache
 * costs one scan that names the few rules that may match it, and PCRE2 then decides those
 * (rules.c). A second database of the same patterns, with HS_FLAG_MULTILINE and without
 * SINGLEMATCH, scans a record's lines joined with '\n' at once, each match naming its line
 * by its end offset (lh_prefilter_scan_lines()), where every pattern allows it
 * (line_local()). In prefilter mode Vectorscan may report a line that the pattern does not
 * match (it relaxes what it cannot run: backreferences, lookarounds...), never the other
 * way round; that holds only where it reads the pattern as PCRE2 does, which
 * tests/unit/rules.c checks (PCRE2 alone against the prefilter, on every shipped and
 * generated rule and on tricky patterns, over thousands of kernel names).
 *
 * A pattern goes to the always-run list instead, and PCRE2 runs it on every new line as
 * before, when: PCRE2 compiled it with an option Vectorscan would not be told about (UTF,
 * UCP: Vectorscan's behaviour on invalid UTF-8 is undefined, PCRE2's is an error); it holds
 * a construct the two libraries are seen to read differently on this machine (probes
 * below); Vectorscan refuses it. Without Vectorscan at build time (LH_HAVE_VECTORSCAN
 * unset) every line rule is on that list: matching is exactly PCRE2 alone.
 *
 * Vectorscan compiles a millisecond or more per pattern (a second for a thousand rules,
 * more than matching them costs on a large trace), so the compiled database is kept in a
 * cache directory (LATHOUND_CACHE_DIR, else $XDG_CACHE_HOME/lathound, else
 * ~/.cache/lathound, but ROOT_CACHE_DIR for root; LATHOUND_CACHE_DIR="" for none): one file
 * per database, named
 * by its hash, holding the patterns themselves (compared in full before use), the rules
 * compiled and the serialized database; the CACHE_FILES most recently used are kept. A
 * file that is not exactly what this rule set and this Vectorscan would compile, or a
 * directory lathound may not trust (lh_check_trusted()), is never used: it compiles.
 */
#include <ctype.h>
#include <dirent.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "rules-priv.h"

#ifdef LH_HAVE_VECTORSCAN
#include <hs.h>

struct lh_prefilter {
	hs_database_t	*db;		/* a line at a time */
	hs_database_t	*block_db;	/* many lines at once (see lh_prefilter_scan_lines()) */
	size_t		nr_ids;
	bool		cached;		/* the databases came from the cache */
};

struct lh_prefilter_scratch {
	hs_scratch_t		*scratch;	/* for both databases */
	uint32_t		*cand;		/* a line's scan output */
	size_t			nr_cand;
	struct lh_prefilter_pair *pairs;	/* a block's scan output */
	size_t			nr_pairs;
	size_t			alloc_pairs;
	size_t			max_pairs;	/* past this many, the block scan gives up */
	const uint32_t		*starts;	/* the block's lines */
	size_t			nr_lines;
	size_t			line;		/* the last match's */
};

/*
 * PCRE2 compile options that do not change which lines a pattern matches. lathound passes
 * none of them; PCRE2 reports PCRE2_ANCHORED for a pattern it finds anchored ('^...').
 */
#define HARMLESS_OPTIONS (PCRE2_ANCHORED | PCRE2_UNGREEDY | PCRE2_NO_AUTO_POSSESS | \
			  PCRE2_NO_DOTSTAR_ANCHOR | PCRE2_NO_START_OPTIMIZE | PCRE2_DUPNAMES)

/*
 * Constructs the two libraries may read differently, each with a pattern and a line on
 * which the readings differ: when PCRE2 and Vectorscan disagree on that line here, a
 * pattern that holds the construct (every one of its strings) is left to PCRE2 alone.
 * PCRE2 10.43 reads 'x{,3}' as x{0,3}, 10.42 and Vectorscan 5.4 as the literal text;
 * PCRE2 reads (?xx) as ignoring spaces in classes too, Vectorscan 5.4 as (?x).
 */
static const struct probe {
	const char	*construct[2];
	const char	*pattern;
	const char	*line;
} probes[] = {
	{ { "{,", "{," }, "^a{,1}$", "a" },
	{ { "{,", "{," }, "^a{,1}$", "a{,1}" },
	{ { "(?", "xx" }, "(?xx)^[ a]$", " " },
	{ { "(?", "xx" }, "(?xx)^[ ^a]$", "b" },
};

static int on_match(unsigned int id, unsigned long long from, unsigned long long to,
		    unsigned int flags, void *ctx)
{
	struct lh_prefilter_scratch *ps = ctx;

	ps->cand[ps->nr_cand++] = id;
	return 0;
}

/* Return: 1 when pattern matches line for PCRE2, 0 when not, -1 when it cannot tell. */
static int probe_pcre2(const char *pattern, const char *line)
{
	pcre2_match_data *md;
	pcre2_code *code;
	PCRE2_SIZE off;
	int err, rc;

	code = pcre2_compile((PCRE2_SPTR)pattern, PCRE2_ZERO_TERMINATED, 0, &err, &off, NULL);
	if (!code)
		return -1;
	md = pcre2_match_data_create_from_pattern(code, NULL);
	if (!md)
		lh_oom();
	rc = pcre2_match(code, (PCRE2_SPTR)line, strlen(line), 0, 0, md, NULL);
	pcre2_match_data_free(md);
	pcre2_code_free(code);
	return rc >= 0 ? 1 : rc == PCRE2_ERROR_NOMATCH ? 0 : -1;
}

/* Return: the same for Vectorscan, compiled exactly (not in prefilter mode). */
static int probe_hs(const char *pattern, const char *line)
{
	struct lh_prefilter_scratch ps = { 0 };
	hs_compile_error_t *err;
	hs_scratch_t *scratch = NULL;
	hs_database_t *db;
	uint32_t cand[1];
	int rc = -1;

	if (hs_compile(pattern, HS_FLAG_SINGLEMATCH, HS_MODE_BLOCK, NULL, &db, &err)) {
		hs_free_compile_error(err);
		return -1;
	}
	ps.cand = cand;
	if (hs_alloc_scratch(db, &scratch) == HS_SUCCESS &&
	    hs_scan(db, line, strlen(line), 0, scratch, on_match, &ps) == HS_SUCCESS)
		rc = ps.nr_cand > 0;
	hs_free_scratch(scratch);
	hs_free_database(db);
	return rc;
}

/* Return: whether pattern holds a construct the two libraries read differently here. */
static bool read_differently(const char *pattern, uint32_t *probed)
{
	size_t i;

	for (i = 0; i < LH_ARRAY_SIZE(probes); i++) {
		if (!strstr(pattern, probes[i].construct[0]) ||
		    !strstr(pattern, probes[i].construct[1]))
			continue;
		if (!(*probed & (1U << i))) {	/* probe once per build */
			*probed |= 1U << i;
			if (probe_pcre2(probes[i].pattern, probes[i].line) !=
			    probe_hs(probes[i].pattern, probes[i].line))
				*probed |= 1U << (16 + i);
		}
		if (*probed & (1U << (16 + i)))
			return true;
	}
	return false;
}

/* Return: the Vectorscan flags for rule r, or -1 when PCRE2 alone must run it. */
static long hs_flags(const struct lh_rules_rule *r, uint32_t *probed)
{
	long flags = HS_FLAG_PREFILTER | HS_FLAG_SINGLEMATCH | HS_FLAG_ALLOWEMPTY;
	uint32_t opts;

	if (pcre2_pattern_info(r->code, PCRE2_INFO_ALLOPTIONS, &opts))
		return -1;
	if (opts & PCRE2_CASELESS)
		flags |= HS_FLAG_CASELESS;
	if (opts & PCRE2_DOTALL)
		flags |= HS_FLAG_DOTALL;
	if (opts & PCRE2_MULTILINE)
		flags |= HS_FLAG_MULTILINE;
	opts &= ~(PCRE2_CASELESS | PCRE2_DOTALL | PCRE2_MULTILINE | HARMLESS_OPTIONS);
	if (opts || read_differently(r->pub.pattern, probed))
		return -1;
	return flags;
}

/*
 * Whether rule r's pattern may be scanned in a block of lines joined with '\n' (with
 * HS_FLAG_MULTILINE, so that '^' and '$' hold at each line's ends): whatever it matches in
 * a line alone it then matches there too, unless it anchors to the subject's own ends (\A,
 * \z, \Z, \G) or turns multiline off inline ('(?-m)', '(?^)'), which this screen finds in
 * the text, erring on the safe side (an escaped backslash before 'A' counts too), or it
 * may match the empty string (PCRE2's minimum length 0), which would report every offset.
 */
static bool line_local(const struct lh_rules_rule *r)
{
	static const char *const absolute[] = { "\\A", "\\z", "\\Z", "\\G" };
	const char *p = r->pub.pattern, *q, *o;
	uint32_t min;
	size_t i;

	if (pcre2_pattern_info(r->code, PCRE2_INFO_MINLENGTH, &min) || !min)
		return false;
	for (i = 0; i < LH_ARRAY_SIZE(absolute); i++)
		if (strstr(p, absolute[i]))
			return false;
	for (q = strstr(p, "(?"); q; q = strstr(q + 2, "(?")) {
		for (o = q + 2; isalpha((unsigned char)*o); o++)
			;
		if (*o == '^')
			return false;
		for (o += *o == '-'; isalpha((unsigned char)*o); o++)
			if (*o == 'm')
				return false;
	}
	return true;
}

/* Return: the database of expressions e[0..n), or NULL; *bad = the one refused, or -1. */
static hs_database_t *compile(const char *const *e, const unsigned int *flags,
			      const unsigned int *ids, size_t n, long *bad)
{
	hs_compile_error_t *err;
	hs_database_t *db;

	*bad = -1;
	if (hs_compile_multi(e, flags, ids, n, HS_MODE_BLOCK, NULL, &db, &err) == HS_SUCCESS)
		return db;
	*bad = err->expression;
	hs_free_compile_error(err);
	return NULL;
}

/* The compiled database cache */

#define CACHE_MAGIC	"lathound vectorscan cache 1\n"
#define CACHE_FILES	16	/* two per rule set: a line, a record's lines */
#define CACHE_MAX	(1UL << 30)
/*
 * Root's: under 'sudo -E' HOME and XDG_CACHE_HOME are still the user's, and a directory
 * that root creates in another user's home (~/.cache, root-owned 0700) breaks the user's
 * own programs.
 */
#define ROOT_CACHE_DIR	"/var/cache/lathound"

/* Return: the cache directory, open, or -1 when there is none to use. */
static int cache_dir(void)
{
	const char *env = getenv("LATHOUND_CACHE_DIR"), *xdg = getenv("XDG_CACHE_HOME");
	const char *home = getenv("HOME");
	struct lh_diag d = { 0 };
	char *path;
	int fd;

	if (env && !*env)
		return -1;
	if (env)
		path = lh_xstrdup(env);
	else if (!geteuid())
		path = lh_xstrdup(ROOT_CACHE_DIR);
	else if (xdg && *xdg == '/')
		path = lh_xasprintf("%s/lathound", xdg);
	else if (home && *home == '/')
		path = lh_xasprintf("%s/.cache/lathound", home);
	else
		return -1;
	fd = lh_mkdir_p(path, 0700) < 0 ? -1 : lh_open_dir(AT_FDCWD, path);
	if (fd >= 0 && lh_check_trusted(fd, true, "cache directory", path, &d)) {
		close(fd);
		fd = -1;
	}
	lh_diag_release(&d);
	free(path);
	return fd;
}

/* What identifies a database: Vectorscan's version, then each expression, flags and id. */
static char *cache_key(const char *const *e, const unsigned int *flags,
		       const unsigned int *ids, size_t n, size_t *len)
{
	char *key = NULL;
	FILE *f = open_memstream(&key, len);
	size_t i;

	if (!f)
		lh_oom();
	fprintf(f, "%s%s\n", CACHE_MAGIC, hs_version());
	for (i = 0; i < n; i++)
		fprintf(f, "%u %u %zu %s\n", flags[i], ids[i], strlen(e[i]), e[i]);
	if (fclose(f))
		lh_oom();
	return key;
}

static uint64_t body_hash(const unsigned int *ids, size_t n, const char *blob, size_t len)
{
	return lh_hash_fast(ids, n * sizeof(*ids), 0) ^ lh_hash_fast(blob, len, 1);
}

/*
 * The file: the key, then the number of ids compiled (size_t), the ids, the blob's size
 * (size_t), a hash of ids and blob (uint64_t), the blob.
 */
struct cache_body {
	size_t		nr_ids;
	const unsigned int *ids;
	size_t		len;
	const char	*blob;
};

/* Return: the database cached under name for key, its ids in ids (*m of them), or NULL. */
static hs_database_t *cache_load(int dfd, const char *name, const char *key, size_t klen,
				 unsigned int *ids, size_t *m)
{
	hs_database_t *db = NULL;
	struct lh_diag d = { 0 };
	struct cache_body b;
	size_t alloc = 0, len = 0, off = klen;
	char *buf = NULL;
	uint64_t h;
	int fd = openat(dfd, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);

	if (fd < 0 || lh_check_trusted(fd, false, "cache file", name, &d) ||
	    lh_read_fd(fd, &buf, &alloc, &len, CACHE_MAX) || len < klen ||
	    memcmp(buf, key, klen))
		goto out;
#define TAKE(dst, size) do {						\
		if (len - off < (size))					\
			goto out;					\
		memcpy((dst), buf + off, (size));			\
		off += (size);						\
	} while (0)
	TAKE(&b.nr_ids, sizeof(b.nr_ids));
	if (b.nr_ids > *m || (len - off) / sizeof(*ids) < b.nr_ids)
		goto out;
	TAKE(ids, b.nr_ids * sizeof(*ids));
	TAKE(&b.len, sizeof(b.len));
	TAKE(&h, sizeof(h));
#undef TAKE
	if (len - off != b.len || h != body_hash(ids, b.nr_ids, buf + off, b.len) ||
	    hs_deserialize_database(buf + off, b.len, &db) != HS_SUCCESS) {
		db = NULL;
		goto out;
	}
	*m = b.nr_ids;
	futimens(fd, NULL);		/* used: the last to be dropped */
out:
	if (fd >= 0)
		close(fd);
	lh_diag_release(&d);
	free(buf);
	return db;
}

/* Drops the least recently used files past CACHE_FILES. */
static void cache_trim(int dfd)
{
	struct { char name[64]; struct timespec t; } files[CACHE_FILES + 1], tmp;
	int fd = dup(dfd);
	DIR *dir = fd < 0 ? NULL : fdopendir(fd);
	struct dirent *de;
	struct stat st;
	size_t n = 0, i;

	if (!dir) {
		if (fd >= 0)
			close(fd);
		return;
	}
	while ((de = readdir(dir))) {
		size_t l = strlen(de->d_name);

		if (l < 6 || l >= sizeof(files[0].name) || strcmp(de->d_name + l - 5, ".hsdb") ||
		    fstatat(dfd, de->d_name, &st, AT_SYMLINK_NOFOLLOW))
			continue;
		memcpy(files[n].name, de->d_name, l + 1);
		files[n].t = st.st_mtim;
		/* keep them newest first; the one past CACHE_FILES goes */
		for (i = n++; i > 0 && (files[i].t.tv_sec > files[i - 1].t.tv_sec ||
					(files[i].t.tv_sec == files[i - 1].t.tv_sec &&
					 files[i].t.tv_nsec > files[i - 1].t.tv_nsec)); i--) {
			tmp = files[i];
			files[i] = files[i - 1];
			files[i - 1] = tmp;
		}
		if (n > CACHE_FILES)
			unlinkat(dfd, files[--n].name, 0);
	}
	closedir(dir);
}

/* Saves db (of ids[0..m)) under name, atomically; a failure only loses the cache. */
static void cache_save(int dfd, const char *name, const char *key, size_t klen,
		       const unsigned int *ids, size_t m, const hs_database_t *db)
{
	char *blob = NULL, tmp[96];
	size_t len = 0;
	uint64_t h;
	int fd, ok;

	if (hs_serialize_database(db, &blob, &len) != HS_SUCCESS)
		return;
	snprintf(tmp, sizeof(tmp), ".%s.%d", name, (int)getpid());
	fd = openat(dfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0) {
		free(blob);
		return;
	}
	h = body_hash(ids, m, blob, len);
	ok = !lh_write_fd(fd, key, klen) && !lh_write_fd(fd, (char *)&m, sizeof(m)) &&
	     !lh_write_fd(fd, (const char *)ids, m * sizeof(*ids)) &&
	     !lh_write_fd(fd, (char *)&len, sizeof(len)) &&
	     !lh_write_fd(fd, (char *)&h, sizeof(h)) && !lh_write_fd(fd, blob, len);
	ok = !close(fd) && ok && !renameat(dfd, tmp, dfd, name);
	if (!ok)
		unlinkat(dfd, tmp, 0);
	free(blob);
	cache_trim(dfd);
}

/*
 * Return: the database of expressions e[0..*m) from the cache, or compiled (and cached);
 * ids[0..*m) are then the ids it holds. NULL when Vectorscan compiles none of them.
 */
static hs_database_t *compile_cached(const char **e, unsigned int *flags, unsigned int *ids,
				     size_t *m, bool all, bool *cached, const char **why);

/* A database past this many refusals is not worth its compile time: PCRE2 alone runs. */
#define MAX_RECOMPILES	16

/*
 * The block database: the same patterns as ids[0..m), compiled for lh_prefilter_scan_lines().
 * Return: it, or NULL when one of them may not be read a block at a time (line_local()) or
 * Vectorscan refuses one so compiled (then nothing is cached: the next run tries again).
 */
static hs_database_t *build_block(struct lh_prefilter *pf, struct lh_rules *rs,
				  const char **e, unsigned int *flags, unsigned int *ids, size_t m)
{
	const char *why = NULL;	/* compile_cached()'s, unused: all or nothing here */
	hs_database_t *db;
	bool cached;
	size_t i, n = m;

	for (i = 0; i < m; i++) {
		if (!line_local(rs->rules[ids[i]]))
			return NULL;
		flags[i] = (flags[i] & ~(HS_FLAG_SINGLEMATCH | HS_FLAG_ALLOWEMPTY)) |
			   HS_FLAG_MULTILINE;
	}
	db = compile_cached(e, flags, ids, &n, true, &cached, &why);
	pf->cached &= cached;
	return db;
}

struct lh_prefilter *lh_prefilter_build(struct lh_rules *rs, const uint32_t *idx, size_t n,
					bool *always, const char **why)
{
	struct lh_prefilter *pf = NULL;
	const char **e = lh_xmalloc((n + 1) * sizeof(*e));
	unsigned int *flags = lh_xmalloc((n + 1) * sizeof(*flags));
	unsigned int *ids = lh_xmalloc((n + 1) * sizeof(*ids));
	hs_database_t *db;
	uint32_t probed = 0;
	bool pf_cached;
	size_t i, m = 0;
	long f;

	*why = NULL;
	if (hs_valid_platform() != HS_SUCCESS) {
		*why = "this CPU lacks what Vectorscan needs";
		goto out;
	}
	for (i = 0; i < n; i++) {
		f = hs_flags(rs->rules[idx[i]], &probed);
		if (f < 0)
			continue;
		e[m] = rs->rules[idx[i]]->pub.pattern;
		flags[m] = f;
		ids[m++] = idx[i];
	}
	db = m ? compile_cached(e, flags, ids, &m, false, &pf_cached, why) : NULL;
	if (!db) {
		if (!*why)
			*why = "Vectorscan reads none of the patterns";
		goto out;
	}
	pf = lh_xcalloc(1, sizeof(*pf));
	pf->db = db;
	pf->cached = pf_cached;
	pf->nr_ids = m;
	for (i = 0; i < m; i++)
		always[ids[i]] = false;
	pf->block_db = build_block(pf, rs, e, flags, ids, m);
out:
	free(e);
	free(flags);
	free(ids);
	return pf;
}

/* Return: the database of e[0..*m), or NULL; those Vectorscan refuses are taken out. */
static hs_database_t *compile_all(const char **e, unsigned int *flags, unsigned int *ids,
				  size_t *pm, const char **why)
{
	hs_database_t *db = NULL;
	hs_compile_error_t *err;
	size_t i, k, m = *pm;
	long bad;
	int tries;

	for (tries = 0; m && !db; tries++) {
		db = compile(e, flags, ids, m, &bad);
		if (db)
			break;
		if (tries == 0) {
			/* drop every pattern Vectorscan cannot parse at once, then retry */
			for (i = k = 0; i < m; i++) {
				hs_expr_info_t *info = NULL;

				if (hs_expression_info(e[i], flags[i], &info, &err) == HS_SUCCESS) {
					free(info);
					e[k] = e[i], flags[k] = flags[i], ids[k++] = ids[i];
				} else {
					hs_free_compile_error(err);
				}
			}
			if (k < m) {
				m = k;
				continue;
			}
		}
		if (bad < 0 || (size_t)bad >= m || tries >= MAX_RECOMPILES) {
			*why = "Vectorscan could not compile the rules";
			m = 0;
			break;
		}
		m--;
		memmove(e + bad, e + bad + 1, (m - bad) * sizeof(*e));
		memmove(flags + bad, flags + bad + 1, (m - bad) * sizeof(*flags));
		memmove(ids + bad, ids + bad + 1, (m - bad) * sizeof(*ids));
	}
	*pm = m;
	return db;
}

static hs_database_t *compile_cached(const char **e, unsigned int *flags, unsigned int *ids,
				     size_t *m, bool all, bool *cached, const char **why)
{
	size_t klen, n = *m;
	char *key = cache_key(e, flags, ids, n, &klen), name[64];
	int dfd = cache_dir();
	hs_database_t *db = NULL;
	long bad;

	*cached = false;
	snprintf(name, sizeof(name), "%016" PRIx64 "%016" PRIx64 ".hsdb",
		 lh_hash_fast(key, klen, 0), lh_hash_fast(key, klen, 0x6c617468));
	if (dfd >= 0)
		db = cache_load(dfd, name, key, klen, ids, m);
	if (db) {
		*cached = true;
	} else {
		db = all ? compile(e, flags, ids, n, &bad) : compile_all(e, flags, ids, m, why);
		if (db && dfd >= 0)
			cache_save(dfd, name, key, klen, ids, *m, db);
	}
	if (dfd >= 0)
		close(dfd);
	free(key);
	return db;
}

struct lh_prefilter_scratch *lh_prefilter_scratch_alloc(const struct lh_prefilter *pf)
{
	struct lh_prefilter_scratch *ps = lh_xcalloc(1, sizeof(*ps));

	if (hs_alloc_scratch(pf->db, &ps->scratch) != HS_SUCCESS ||
	    (pf->block_db && hs_alloc_scratch(pf->block_db, &ps->scratch) != HS_SUCCESS))
		lh_oom();
	ps->cand = lh_xmalloc((pf->nr_ids + 1) * sizeof(*ps->cand));
	return ps;
}

void lh_prefilter_scratch_free(struct lh_prefilter_scratch *ps)
{
	if (!ps)
		return;
	hs_free_scratch(ps->scratch);
	free(ps->cand);
	free(ps->pairs);
	free(ps);
}

size_t lh_prefilter_scan(const struct lh_prefilter *pf, struct lh_prefilter_scratch *ps,
			 const char *s, size_t len, const uint32_t **cand)
{
	ps->nr_cand = 0;
	if (len > UINT32_MAX ||
	    hs_scan(pf->db, s, len, 0, ps->scratch, on_match, ps) != HS_SUCCESS)
		return (size_t)-1;
	*cand = ps->cand;
	return ps->nr_cand;
}

bool lh_prefilter_has_block(const struct lh_prefilter *pf)
{
	return pf->block_db;
}

/*
 * A match in a block ends at 'to': it is a candidate for the line whose text or '\n' holds
 * offset 'to' (a match of line k alone, ending at its offset e <= its length, ends at
 * starts[k] + e in the block). Matches come mostly in order: the last line is tried first.
 */
static int on_block_match(unsigned int id, unsigned long long from, unsigned long long to,
			  unsigned int flags, void *ctx)
{
	struct lh_prefilter_scratch *ps = ctx;
	size_t lo = 0, hi = ps->nr_lines, k = ps->line;

	if (to < ps->starts[k] || (k + 1 < ps->nr_lines && to >= ps->starts[k + 1])) {
		while (hi - lo > 1) {		/* the last start <= to */
			k = lo + (hi - lo) / 2;
			if (ps->starts[k] <= to)
				lo = k;
			else
				hi = k;
		}
		k = lo;
	}
	ps->line = k;
	if (ps->nr_pairs && ps->pairs[ps->nr_pairs - 1].line == k &&
	    ps->pairs[ps->nr_pairs - 1].rule == id)
		return 0;
	if (ps->nr_pairs == ps->max_pairs)
		return 1;			/* too many: lines one at a time instead */
	LH_GROW(ps->pairs, ps->nr_pairs + 1, ps->alloc_pairs);
	ps->pairs[ps->nr_pairs++] = (struct lh_prefilter_pair){ (uint32_t)k, id };
	return 0;
}

static int cmp_pair(const void *a, const void *b)
{
	const struct lh_prefilter_pair *x = a, *y = b;

	if (x->line != y->line)
		return x->line < y->line ? -1 : 1;
	return x->rule < y->rule ? -1 : x->rule > y->rule;
}

size_t lh_prefilter_scan_lines(const struct lh_prefilter *pf, struct lh_prefilter_scratch *ps,
			       const char *text, size_t len, const uint32_t *starts, size_t nr,
			       const struct lh_prefilter_pair **pairs)
{
	size_t i, n;

	if (!pf->block_db || !nr || len > UINT32_MAX)
		return (size_t)-1;
	ps->starts = starts;
	ps->nr_lines = nr;
	ps->line = 0;
	ps->nr_pairs = 0;
	ps->max_pairs = 2 * len + 64;
	if (hs_scan(pf->block_db, text, len, 0, ps->scratch, on_block_match, ps) != HS_SUCCESS)
		return (size_t)-1;
	if (ps->nr_pairs > 1)	/* (qsort() of none: a NULL array, which UBSan flags) */
		qsort(ps->pairs, ps->nr_pairs, sizeof(*ps->pairs), cmp_pair);
	for (i = n = 0; i < ps->nr_pairs; i++)
		if (!n || cmp_pair(&ps->pairs[n - 1], &ps->pairs[i]))
			ps->pairs[n++] = ps->pairs[i];
	*pairs = ps->pairs;
	return n;
}

bool lh_prefilter_cached(const struct lh_prefilter *pf)
{
	return pf->cached;
}

void lh_prefilter_free(struct lh_prefilter *pf)
{
	if (!pf)
		return;
	hs_free_database(pf->db);
	hs_free_database(pf->block_db);
	free(pf);
}

const char *lh_rules_prefilter_engine(char *buf, size_t len)
{
	snprintf(buf, len, "Vectorscan %.*s", (int)strcspn(hs_version(), " "), hs_version());
	return buf;
}

#else /* !LH_HAVE_VECTORSCAN */

struct lh_prefilter *lh_prefilter_build(struct lh_rules *rs, const uint32_t *idx, size_t n,
					bool *always, const char **why)
{
	*why = "built without Vectorscan";
	return NULL;
}

struct lh_prefilter_scratch *lh_prefilter_scratch_alloc(const struct lh_prefilter *pf)
{
	return NULL;
}

void lh_prefilter_scratch_free(struct lh_prefilter_scratch *ps)
{
}

size_t lh_prefilter_scan(const struct lh_prefilter *pf, struct lh_prefilter_scratch *ps,
			 const char *s, size_t len, const uint32_t **cand)
{
	return (size_t)-1;
}

bool lh_prefilter_has_block(const struct lh_prefilter *pf)
{
	return false;
}

size_t lh_prefilter_scan_lines(const struct lh_prefilter *pf, struct lh_prefilter_scratch *ps,
			       const char *text, size_t len, const uint32_t *starts, size_t nr,
			       const struct lh_prefilter_pair **pairs)
{
	return (size_t)-1;
}

bool lh_prefilter_cached(const struct lh_prefilter *pf)
{
	return false;
}

void lh_prefilter_free(struct lh_prefilter *pf)
{
}

const char *lh_rules_prefilter_engine(char *buf, size_t len)
{
	return NULL;
}

#endif
