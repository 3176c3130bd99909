/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What a directory holds, for the tests of the modules that write files (no temporary file
 * left behind, nothing written beside the target). Header-only.
 */
#ifndef LH_TEST_DIR_H
#define LH_TEST_DIR_H

#include <check.h>
#include <dirent.h>
#include <string.h>

/*
 * Return: the number of entries of directory path but "." and ".."; in *hidden (when not
 * NULL) how many of them start with '.', as lathound's temporary files do.
 */
static inline int dir_entries(const char *path, int *hidden)
{
	struct dirent *de;
	DIR *d = opendir(path);
	int n = 0;

	ck_assert_msg(d, "cannot open directory '%s'", path);
	if (hidden)
		*hidden = 0;
	while ((de = readdir(d))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		n++;
		if (hidden && de->d_name[0] == '.')
			(*hidden)++;
	}
	closedir(d);
	return n;
}

#endif /* LH_TEST_DIR_H */
