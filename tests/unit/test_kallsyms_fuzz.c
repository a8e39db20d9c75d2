// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Randomised tests of common/kallsyms.c (test_kallsyms.c has the worked
 * examples): random tables checked against a brute-force lookup, and
 * mangled files that must load without harm. Fixed seeds: a failure
 * repeats.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "tap.h"
#include "kallsyms.h"

#define LAST_SPAN (1ULL << 20)	/* as kallsyms.c: the last function's reach */

struct sym {
	uint64_t addr;
	char type;
	char name[24];
	int mod;		/* 0 = kernel image, else module number */
};

static unsigned int seed;

static uint64_t rnd64(void)
{
	return (uint64_t)rand_r(&seed) << 33 ^ (uint64_t)rand_r(&seed) << 11 ^ rand_r(&seed);
}

static int text(char t)
{
	return t == 't' || t == 'T' || t == 'w' || t == 'W';
}

static char *tmpfile_path(void)
{
	static char path[64];
	int fd;

	snprintf(path, sizeof(path), "%s/ksyms.XXXXXX", getenv("TMPDIR") ?: "/tmp");
	fd = mkstemp(path);
	if (fd < 0)
		return NULL;
	close(fd);
	return path;
}

/*
 * What ksyms_find must answer, by brute force: among the symbols at the
 * highest address <= addr, a text one if any (then the least name); no
 * answer for data, the text-end markers, or far past the last symbol.
 */
static const struct sym *oracle(const struct sym *s, int n, uint64_t addr)
{
	const struct sym *best = NULL;
	uint64_t top = 0;
	int found = 0;

	for (int i = 0; i < n; i++)
		if (s[i].addr <= addr && (!found || s[i].addr > top)) {
			top = s[i].addr;
			found = 1;
		}
	if (!found)
		return NULL;
	for (int i = 0; i < n; i++) {
		if (s[i].addr != top)
			continue;
		if (!best || (text(s[i].type) > text(best->type)) ||
		    (text(s[i].type) == text(best->type) && strcmp(s[i].name, best->name) < 0))
			best = &s[i];
	}
	if (!text(best->type) || !strcmp(best->name, "_etext") || !strcmp(best->name, "_einittext"))
		return NULL;
	for (int i = 0; i < n; i++)
		if (s[i].addr > top)
			return best;
	return addr - top < LAST_SPAN ? best : NULL;
}

/* Random tables, with junk lines mixed in that must be skipped. */
static void differential(int rounds)
{
	static const char types[] = "tTtTwWdDbBrRA";
	static const char *const junk[] = {
		"\n", "garbage\n", "ffffffff81000000\n", "ffffffff81000000 T\n",
		"ffffffff81000000  T two_spaces\n", "xyz T not_hex\n",
		"ffffffff81000000 T bad_module\t[ext4\n", "ffffffff81000000 T empty_mod\t[]\n",
		"1ffffffffffffffffff T too_big\n", "-1 T negative\n", " ffffffff81000000 T lead\n",
	};
	int bad = 0, queries = 0, kept_bad = 0;

	seed = 2024;
	for (int r = 0; r < rounds; r++) {
		int n = 1 + rand_r(&seed) % 300;
		struct sym *s = calloc(n, sizeof(*s));
		uint64_t base = 0xffffffff81000000ULL + (rnd64() & 0xffffff000ULL);
		char *path = tmpfile_path();
		FILE *f = path ? fopen(path, "w") : NULL;
		struct ksyms *ks;

		if (!s || !f) {
			ok(0, "differential: temp file");
			free(s);
			return;
		}
		for (int i = 0; i < n; i++) {
			/* clustered addresses, so some share one */
			s[i].addr = base + (rand_r(&seed) % 4 ? rnd64() % 0x10000 : rnd64() % 64);
			s[i].type = types[rand_r(&seed) % (sizeof(types) - 1)];
			s[i].mod = rand_r(&seed) % 5 == 0 ? 1 + rand_r(&seed) % 3 : 0;
			if (rand_r(&seed) % 50 == 0)
				strcpy(s[i].name, rand_r(&seed) % 2 ? "_etext" : "_einittext");
			else
				snprintf(s[i].name, sizeof(s[i].name), "f%d_%x", i, rand_r(&seed) % 256);
			if (s[i].mod)
				fprintf(f, "%016llx %c %s\t[mod%d]\n", (unsigned long long)s[i].addr,
					s[i].type, s[i].name, s[i].mod);
			else
				fprintf(f, "%016llx %c %s\n", (unsigned long long)s[i].addr,
					s[i].type, s[i].name);
			if (rand_r(&seed) % 8 == 0)
				fputs(junk[rand_r(&seed) % (sizeof(junk) / sizeof(junk[0]))], f);
		}
		fclose(f);
		ks = ksyms_load(path);
		unlink(path);
		if (!ks || ksyms_count(ks) != n) {
			kept_bad++;
			free(s);
			ksyms_free(ks);
			continue;
		}
		for (int q = 0; q < 200; q++) {
			const struct sym *want;
			const struct ksym *got;
			uint64_t addr, off = 0;

			/* exact addresses, their neighbours, and anywhere */
			addr = s[rand_r(&seed) % n].addr;
			if (q % 3 == 1)
				addr += (uint64_t)(rand_r(&seed) % 3) - 1;
			else if (q % 3 == 2)
				addr = base - 0x1000 + rnd64() % (0x12000 + 2 * LAST_SPAN);
			want = oracle(s, n, addr);
			got = ksyms_find(ks, addr, &off);
			queries++;
			if ((!want) != (!got) || (want && (strcmp(want->name, got->name) ||
			    off != addr - want->addr || (want->mod != 0) != (got->module != NULL)))) {
				if (bad++ < 5)
					printf("#   round %d addr %llx: want %s, got %s+0x%llx\n", r,
					       (unsigned long long)addr, want ? want->name : "(none)",
					       got ? got->name : "(none)", (unsigned long long)off);
			}
		}
		ksyms_free(ks);
		free(s);
	}
	is_int(kept_bad, 0, "differential: every good line kept, every junk line skipped");
	ok(bad == 0, "differential: %d lookups in %d random tables agree with brute force",
	   queries, rounds);
}

/* Mangled copies of a small good file: load, and every answer is sane. */
static void mangled(int rounds)
{
	static const char good[] =
		"0000000000000000 A fixed_percpu_data\n"
		"ffffffff81000000 T _stext\n"
		"ffffffff81000100 t helper\n"
		"ffffffff81200000 T submit_bio\n"
		"ffffffff81200040 W weak_one\n"
		"ffffffff81400000 T _etext\n"
		"ffffffff81600000 D some_data\n"
		"ffffffffc0a00000 t ext4_read_folio\t[ext4]\n"
		"ffffffffc0b00000 t mod_fn\t[mod]\r\n";
	int bad = 0, loaded = 0;

	seed = 8;
	for (int r = 0; r < rounds; r++) {
		char buf[sizeof(good) + 64], *path = tmpfile_path();
		size_t len = sizeof(good) - 1;
		struct ksyms *ks;
		FILE *f;

		memcpy(buf, good, len);
		for (int m = 1 + rand_r(&seed) % 6; m > 0 && len; m--) {
			size_t at = rand_r(&seed) % len;

			switch (rand_r(&seed) % 4) {
			case 0:	/* any byte, NUL included */
				buf[at] = rand_r(&seed) % 256;
				break;
			case 1:	/* a separator where it hurts */
				buf[at] = " \t\n[]"[rand_r(&seed) % 5];
				break;
			case 2:	/* cut short */
				len = at;
				break;
			default:	/* a byte dropped */
				memmove(buf + at, buf + at + 1, len - at - 1);
				len--;
			}
		}
		f = path ? fopen(path, "w") : NULL;
		if (!f || fwrite(buf, 1, len, f) != len) {
			ok(0, "mangled: temp file");
			return;
		}
		fclose(f);
		ks = ksyms_load(path);
		unlink(path);
		if (!ks)
			continue;	/* EPERM for all-zero addresses is fine */
		loaded++;
		if (ksyms_count(ks) > 10)
			bad++;
		for (int q = 0; q < 64; q++) {
			uint64_t addr = q < 32 ? 0xffffffff81000000ULL + rnd64() % 0x700000 :
					0xffffffffc0a00000ULL + rnd64() % 0x200000, off;
			const struct ksym *k = ksyms_find(ks, addr, &off);

			if (k && (k->addr > addr || off != addr - k->addr || !k->name[0] ||
				  strpbrk(k->name, " \t\r\n") || !text(k->type) ||
				  (k->module && (!k->module[0] || strchr(k->module, ']'))))) {
				if (bad++ < 5)
					printf("#   round %d: odd answer %s at %llx\n", r, k->name,
					       (unsigned long long)addr);
			}
		}
		ksyms_free(ks);
	}
	ok(bad == 0, "mangled: %d of %d damaged files loaded; every answer sane", loaded, rounds);
}

/* One line of 1 MiB and a name of 64 KiB: read whole, no truncation games. */
static void long_lines(void)
{
	char *path = tmpfile_path();
	FILE *f = path ? fopen(path, "w") : NULL;
	const struct ksym *k;
	struct ksyms *ks;
	uint64_t off;

	if (!f) {
		ok(0, "long lines: temp file");
		return;
	}
	for (int i = 0; i < 1 << 20; i++)
		fputc('x', f);
	fputs("\nffffffff81000000 T ", f);
	for (int i = 0; i < 1 << 16; i++)
		fputc('a' + i % 26, f);
	fputs("\nffffffff81000100 T after_long\n", f);
	fclose(f);
	ks = ksyms_load(path);
	unlink(path);
	is_int(ksyms_count(ks), 2, "long lines: a 1 MiB junk line skipped, a 64 KiB name kept");
	k = ksyms_find(ks, 0xffffffff81000010ULL, &off);
	ok(k && strlen(k->name) == 1 << 16 && off == 0x10, "long lines: the long name resolves whole");
	k = ksyms_find(ks, 0xffffffff81000101ULL, &off);
	ok(k && !strcmp(k->name, "after_long"), "long lines: the line after it is intact");
	ksyms_free(ks);
}

int main(void)
{
	differential(300);
	mangled(2000);
	long_lines();
	return done();
}
