// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Offline views, HTML and JSON: see page.h. */
#include "page.h"

/*
 * The length of the UTF-8 sequence at p if it is a valid one, else 0. A
 * task's name is cut at 15 bytes, maybe inside a character: JSON must
 * be UTF-8, so such a byte becomes U+FFFD.
 */
static int utf8_len(const unsigned char *p)
{
	unsigned char lo = 0x80, hi = 0xbf;
	int n;

	if (*p < 0x80)
		return 1;
	if (*p >= 0xc2 && *p <= 0xdf)
		n = 2;
	else if (*p >= 0xe0 && *p <= 0xef)
		n = 3;
	else if (*p >= 0xf0 && *p <= 0xf4)
		n = 4;
	else
		return 0;
	/* no overlong forms, no surrogates, nothing past U+10FFFF */
	if (*p == 0xe0)
		lo = 0xa0;
	else if (*p == 0xed)
		hi = 0x9f;
	else if (*p == 0xf0)
		lo = 0x90;
	else if (*p == 0xf4)
		hi = 0x8f;
	if (p[1] < lo || p[1] > hi)
		return 0;
	for (int i = 2; i < n; i++)
		if (p[i] < 0x80 || p[i] > 0xbf)
			return 0;
	return n;
}

void page_json_str(FILE *f, const char *s)
{
	fputc('"', f);
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		switch (*p) {
		case '"':
			fputs("\\\"", f);
			break;
		case '\\':
			fputs("\\\\", f);
			break;
		case '\n':
			fputs("\\n", f);
			break;
		case '\t':
			fputs("\\t", f);
			break;
		case '<':	/* "</script>" must not appear in a page's data */
		case '>':
		case '&':
			fprintf(f, "\\u%04x", *p);
			break;
		default:
			/* other control bytes; UTF-8 passes as it is */
			if (*p < 0x20) {
				fprintf(f, "\\u%04x", *p);
			} else {
				int n = utf8_len(p);

				if (!n) {
					fputs("\\ufffd", f);
					break;
				}
				fwrite(p, 1, n, f);
				p += n - 1;
			}
		}
	}
	fputc('"', f);
}

void page_html_str(FILE *f, const char *s)
{
	for (; *s; s++) {
		switch (*s) {
		case '&':
			fputs("&amp;", f);
			break;
		case '<':
			fputs("&lt;", f);
			break;
		case '>':
			fputs("&gt;", f);
			break;
		case '"':
			fputs("&quot;", f);
			break;
		case '\'':
			fputs("&#39;", f);
			break;
		default:
			fputc(*s, f);
		}
	}
}

void page_begin(FILE *f, const char *title, const char *css)
{
	fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
	      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
	      "<title>", f);
	page_html_str(f, title);
	fprintf(f, "</title>\n<style>\n%s</style>\n</head>\n<body>\n", css);
}

void page_data_begin(FILE *f, const char *id)
{
	fputs("<script type=\"application/json\" id=\"", f);
	page_html_str(f, id);
	fputs("\">\n", f);
}

void page_data_end(FILE *f)
{
	fputs("\n</script>\n", f);
}

void page_end(FILE *f, const char *js)
{
	if (js)
		fprintf(f, "<script>\n%s</script>\n", js);
	fputs("</body>\n</html>\n", f);
}
