// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Unit tests of common/kallsyms.c on synthetic kallsyms files. */
#include <errno.h>
#include <stdlib.h>
#include <unistd.h>
#include "tap.h"
#include "kallsyms.h"

static char dir[] = "/tmp/test_kallsyms.XXXXXX";

/* Write text to a file in dir; returns its path (static buffer). */
static const char *file(const char *name, const char *text)
{
	static char path[256];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	if (!f || fputs(text, f) < 0 || fclose(f)) {
		perror(path);
		exit(1);
	}
	return path;
}

/* Name and offset of addr, as "name+0xoff" or "(none)". */
static const char *where(const struct ksyms *ks, uint64_t addr)
{
	static char buf[512];
	const struct ksym *s;
	uint64_t off = 0;

	s = ksyms_find(ks, addr, &off);
	if (!s)
		return "(none)";
	snprintf(buf, sizeof(buf), "%s+0x%llx%s%s", s->name,
		 (unsigned long long)off, s->module ? " " : "",
		 s->module ? s->module : "");
	return buf;
}

/* Unsorted like the real file (modules and bpf last), with bad lines. */
static const char sample[] =
	"ffffffff81000000 T _stext\n"
	"ffffffff81000000 T startup_64\n"
	"ffffffff81200040 t submit_bio_noacct_nocheck\n"
	"ffffffff81200000 T submit_bio\n"
	"ffffffff81400000 T _etext\n"
	"ffffffff81600000 D some_data\n"
	"ffffffff81600000 d data_alias\n"
	"ffffffffc0a00000 t ext4_read_folio\t[ext4]\n"
	"ffffffffc0b00000 t bpf_prog_6deef7357e7b4530_on_submit\t[bpf]\n"
	"not a line\n"
	"ffffffff81300000\n"
	"ffffffff81300000 T\n"
	"zzzz T bad_hex\n"
	"ffffffff81300000 TT two_letter_type\n"
	"ffffffff81300000 t broken_module\t[\n"
	"\n"
	"0000000000001000 A fixed_percpu_data\n";

static void test_sample(void)
{
	struct ksyms *ks = ksyms_load(file("sample", sample));

	ok(ks != NULL, "sample loads");
	if (!ks)
		return;
	is_int(ksyms_count(ks), 10, "10 good lines kept, 7 malformed skipped");
	is_str(where(ks, 0xffffffff81000000ULL), "_stext+0x0", "first kernel symbol, exact");
	is_str(where(ks, 0xffffffff81200000ULL), "submit_bio+0x0", "exact address");
	is_str(where(ks, 0xffffffff8120003fULL), "submit_bio+0x3f", "between two symbols");
	is_str(where(ks, 0xffffffff81200041ULL), "submit_bio_noacct_nocheck+0x1",
	       "sorted although listed out of order");
	is_str(where(ks, 0xffffffff813fffffULL), "submit_bio_noacct_nocheck+0x1fffbf",
	       "last byte before _etext");
	is_str(where(ks, 0xffffffff81400010ULL), "(none)", "after _etext: not text");
	is_str(where(ks, 0xffffffff81600008ULL), "(none)", "in data: not text");
	is_str(where(ks, 0xffffffffc0a00123ULL), "ext4_read_folio+0x123 ext4", "module symbol");
	is_str(where(ks, 0xffffffffc0b00010ULL),
	       "bpf_prog_6deef7357e7b4530_on_submit+0x10 bpf", "last symbol");
	is_str(where(ks, 0xffffffffffffff00ULL), "(none)", "far above the last symbol");
	is_str(where(ks, 0x2000), "(none)", "absolute (A) symbol below the kernel: not text");
	is_str(where(ks, 0xfff), "(none)", "below the first symbol");
	is_str(where(ks, 0), "(none)", "address 0");
	/* 64-bit: an int or signed compare would sort these wrongly */
	is_str(where(ks, 0x7fffffff81200000ULL), "(none)", "high bit clear: not kernel");
	ksyms_free(ks);
}

static void test_empty_and_errors(void)
{
	struct ksyms *ks;
	uint64_t off = 7;

	ks = ksyms_load(file("empty", ""));
	ok(ks != NULL, "empty file loads");
	is_int(ksyms_count(ks), 0, "empty file: no symbols");
	ok(ksyms_find(ks, 0xffffffff81000000ULL, &off) == NULL, "empty file: finds nothing");
	is_int(off, 7, "empty file: offset untouched");
	ksyms_free(ks);

	ks = ksyms_load(file("junk", "hello\nworld 1 2 3\n"));
	is_int(ksyms_count(ks), 0, "only malformed lines: no symbols");
	ksyms_free(ks);

	errno = 0;
	ks = ksyms_load(file("hidden", "0000000000000000 T _stext\n"
					"0000000000000000 T submit_bio\n"));
	ok(ks == NULL && errno == EPERM, "all addresses 0 (kptr_restrict): EPERM");

	errno = 0;
	ok(ksyms_load("/nonexistent/kallsyms") == NULL && errno == ENOENT,
	   "missing file: ENOENT");
	ok(ksyms_find(NULL, 0xffffffff81000000ULL, NULL) == NULL, "NULL table: nothing");
}

/* Many symbols, long names: no fixed limit on either. */
static void test_many(void)
{
	const int n = 50000;
	char name[400];
	struct ksyms *ks;
	int bad = 0;
	FILE *f;

	snprintf(name, sizeof(name), "%s/many", dir);
	f = fopen(name, "w");
	if (!f)
		return;
	for (int i = n - 1; i >= 0; i--)	/* descending: sorting matters */
		fprintf(f, "%016llx t fn_%d\n", 0xffffffff81000000ULL + i * 0x40ULL, i);
	memset(name, 'x', 300);
	name[300] = '\0';
	fprintf(f, "ffffffffa0000000 T %s\n", name);
	fclose(f);
	snprintf(name, sizeof(name), "%s/many", dir);
	ks = ksyms_load(name);
	is_int(ksyms_count(ks), n + 1, "%d symbols loaded", n + 1);
	for (int i = 0; i < n; i += 997) {
		char want[32];

		snprintf(want, sizeof(want), "fn_%d+0x3f", i);
		if (strcmp(where(ks, 0xffffffff81000000ULL + i * 0x40ULL + 0x3f), want))
			bad++;
	}
	is_int(bad, 0, "every probed address resolves to its own symbol");
	is_int(strlen(where(ks, 0xffffffffa0000001ULL)), 300 + 4, "a 300-character name");
	ksyms_free(ks);
}

static void test_kernel(void)
{
	const struct ksyms *a, *b;

	a = ksyms_kernel();
	if (!a) {
		printf("ok %d # SKIP /proc/kallsyms: %s\n", ++tap_n, strerror(errno));
		return;
	}
	b = ksyms_kernel();
	ok(a == b, "/proc/kallsyms is read once");
	ok(ksyms_count(a) > 1000, "/proc/kallsyms: %d symbols", ksyms_count(a));
}

int main(void)
{
	if (!mkdtemp(dir)) {
		perror("mkdtemp");
		return 1;
	}
	test_sample();
	test_empty_and_errors();
	test_many();
	test_kernel();
	for (const char *const *f = (const char *const[]){ "sample", "empty", "junk",
			"hidden", "many", NULL }; *f; f++) {
		char path[256];

		snprintf(path, sizeof(path), "%s/%s", dir, *f);
		unlink(path);
	}
	rmdir(dir);
	return done();
}
