// SPDX-License-Identifier: GPL-2.0-only
/* Text made safe for markup (escape.h). */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "escape.h"
#include "util/util.h"

#define REPLACEMENT	"\xef\xbf\xbd"	/* U+FFFD */

int lh_escape_xml(FILE *out, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t n;

	for (; p && *p; p++) {
		switch (*p) {
		case '&':
			fputs("&amp;", out);
			break;
		case '<':
			fputs("&lt;", out);
			break;
		case '>':
			fputs("&gt;", out);
			break;
		case '"':
			fputs("&quot;", out);
			break;
		case '\'':
			fputs("&#39;", out);
			break;
		case '\t':
		case '\n':
			putc(*p, out);
			break;
		default:
			if (*p >= 0x20 && *p < 0x7f) {
				putc(*p, out);
			} else if ((n = lh_utf8_printable(p))) {
				fwrite(p, 1, n, out);
				p += n - 1;
			} else {
				fputs(REPLACEMENT, out);
			}
		}
	}
	return ferror(out) ? -1 : 0;
}
