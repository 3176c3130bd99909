/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Text made safe for markup: the one escape of the HTML report, its SVG plots and JUnit XML.
 * A trace's text (a task's comm, a function, a file name) and a report read back are
 * untrusted: no byte of them may open a tag, end an attribute or break the page's UTF-8.
 */
#ifndef LH_ESCAPE_H
#define LH_ESCAPE_H

#include <stdio.h>

/*
 * Writes s (NULL: nothing) escaped for XML and HTML text and attribute values: & < > " '
 * as entities; control characters other than tab and newline, DEL, C1 controls and every
 * byte that is not part of valid UTF-8 as U+FFFD. Return: 0, or -1 when writing failed.
 */
int lh_escape_xml(FILE *out, const char *s);

#endif /* LH_ESCAPE_H */
