// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Offline views, HTML and JSON: see page.h. */
#include "page.h"

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
			/* other control bytes; bytes of UTF-8 pass as they are */
			if (*p < 0x20)
				fprintf(f, "\\u%04x", *p);
			else
				fputc(*p, f);
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
