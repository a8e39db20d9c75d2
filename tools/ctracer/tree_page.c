// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* ctracer's page: see tree_page.h. */
#include "page.h"
#include "tree_page.h"

/*
 * The page's style and script are tree_page.css and tree_page.js, read
 * and edited as the files they are, and built into this object by the
 * assembler's .incbin, each ended by a NUL: no generated file, no tool
 * but the compiler's own assembler (a cross build's too). The assembler
 * runs in the program's folder (make -C), where the two files are.
 */
#define EMBED(sym, file)						\
	__asm__(".section .rodata\n"					\
		".type " #sym ", %object\n"				\
		#sym ":\n"						\
		".incbin \"" file "\"\n"				\
		".byte 0\n"						\
		".size " #sym ", . - " #sym "\n"			\
		".previous\n")

EMBED(tree_page_css, "tree_page.css");
EMBED(tree_page_js, "tree_page.js");
extern const char tree_page_css[], tree_page_js[];

void tree_page_begin(FILE *f, const char *title)
{
	page_begin(f, title, tree_page_css);
	fputs("<h1>", f);
	page_html_str(f, title);
	fputs("</h1>\n<p class=\"meta\" id=\"count\"></p>\n"
	      "<h2>Every bio of the run, on one time axis (click one to open it)</h2>\n"
	      "<div id=\"ov\"></div>\n<div id=\"key\"></div>\n"
	      "<p class=\"meta\">The overview's axis starts at the run's first event. Each "
	      "bio's timeline starts at its own first event, at one scale for every bio (the "
	      "longest fills it), so their lengths compare; its first row shows btt's phases, "
	      "which shade the rows below. <i>Duration</i>: a call's time to its return, where "
	      "the door saw returns (-r); else, in italics, the time to the bio's next event "
	      "(in the tracepoint door, mostly the btt phase that event begins).</p>\n"
	      "<div id=\"bios\"></div>\n", f);
	page_data_begin(f, "ct-data");
}

void tree_page_end(FILE *f)
{
	page_data_end(f);
	page_end(f, tree_page_js);
}
