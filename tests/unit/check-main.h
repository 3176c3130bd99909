/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The main() every Check unit test ends with: runs the suite that suite_fn() builds
 * (CK_NORMAL: Check's "Checks: N, Failures: F, Errors: E" line, which tests/run-all reads)
 * and exits 1 when anything failed. Use: LH_CHECK_MAIN(parse_suite)
 */
#ifndef LH_CHECK_MAIN_H
#define LH_CHECK_MAIN_H

#include <check.h>

#define LH_CHECK_MAIN(suite_fn)						\
int main(void)								\
{									\
	SRunner *sr = srunner_create(suite_fn());			\
	int failed;							\
									\
	srunner_run_all(sr, CK_NORMAL);					\
	failed = srunner_ntests_failed(sr);				\
	srunner_free(sr);						\
	return failed != 0;						\
}

#endif /* LH_CHECK_MAIN_H */
