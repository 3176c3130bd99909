/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The oracles the report targets share (fuzz-parse.c, fuzz-report.c): a report written in each
 * format and checked by that format's owner. Each check aborts, which libFuzzer reports as a
 * crash with the input that made it.
 */
#ifndef LH_FUZZ_H
#define LH_FUZZ_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>
#include <libxml/parser.h>

#include "report/report.h"

/* Writes rep in format f into a new buffer. Return: it (free it), its length in *len. */
static inline char *fuzz_report_text(struct lh_report *rep, enum lh_format f, size_t *len)
{
	char *buf = NULL;
	FILE *out = open_memstream(&buf, len);

	if (!out || lh_report_write(rep, f, out))
		abort();
	fclose(out);
	return buf;
}

/* The JSON report parses with json-c's strict UTF-8 tokener. */
static inline void fuzz_check_json(const char *json, size_t len)
{
	struct json_tokener *tok = json_tokener_new();
	json_object *root;

	json_tokener_set_flags(tok, JSON_TOKENER_STRICT | JSON_TOKENER_VALIDATE_UTF8);
	root = json_tokener_parse_ex(tok, json, (int)len);
	if (!root || json_tokener_get_error(tok) != json_tokener_success)
		abort();
	json_object_put(root);
	json_tokener_free(tok);
}

static void fuzz_silent(void *ctx, const char *msg, ...)
{
}

/* The JUnit report parses with libxml2. */
static inline void fuzz_check_junit(const char *xml, size_t len)
{
	xmlDocPtr doc;

	xmlSetGenericErrorFunc(NULL, fuzz_silent);
	doc = xmlReadMemory(xml, (int)len, "junit.xml", NULL, XML_PARSE_NONET);
	if (!doc)
		abort();
	xmlFreeDoc(doc);
}

/* A report for people (text, HTML) holds no control byte but line feeds. */
static inline void fuzz_check_no_control(const char *buf, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++)
		if (((unsigned char)buf[i] < 0x20 && buf[i] != '\n') || buf[i] == 0x7f)
			abort();
}

#endif /* LH_FUZZ_H */
