/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Offline views: a self-contained HTML page (its style and script
 * inline, nothing fetched from the network) and JSON. The escaping and
 * the page's skeleton only; each program writes its own data and script.
 */
#ifndef __PAGE_H
#define __PAGE_H

#include <stdio.h>

/* s as a JSON string, quotes included; safe inside an HTML <script> too. */
void page_json_str(FILE *f, const char *s);

/* s as HTML text or attribute value: & < > " ' escaped. */
void page_html_str(FILE *f, const char *s);

/*
 * <!DOCTYPE html> up to the opening of <body>: title (escaped) and css
 * (written as is, in a <style> element).
 */
void page_begin(FILE *f, const char *title, const char *css);

/*
 * Data for the page's script: <script type="application/json" id=ID>,
 * then the caller writes JSON (strings through page_json_str(), so no
 * "</script>" can end it early), then page_data_end().
 */
void page_data_begin(FILE *f, const char *id);
void page_data_end(FILE *f);

/* The page's script (as is, in a <script> element; NULL: none) and its end. */
void page_end(FILE *f, const char *js);

#endif /* __PAGE_H */
