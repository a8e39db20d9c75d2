/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* Minimal TAP for the unit tests: ok(), is_int(), is_str(), done(). */
#ifndef __TAP_H
#define __TAP_H

#include <stdio.h>
#include <string.h>

static int tap_n, tap_failed;

#define ok(cond, ...) do {						\
	int _c = !!(cond);						\
	printf("%sok %d - ", _c ? "" : "not ", ++tap_n);		\
	printf(__VA_ARGS__);						\
	printf("\n");							\
	if (!_c) {							\
		tap_failed++;						\
		printf("#   at %s:%d\n", __FILE__, __LINE__);		\
	}								\
} while (0)

#define is_int(got, want, ...) do {					\
	long long _g = (got), _w = (want);				\
	ok(_g == _w, __VA_ARGS__);					\
	if (_g != _w)							\
		printf("#   got %lld, want %lld\n", _g, _w);		\
} while (0)

#define is_str(got, want, ...) do {					\
	const char *_g = (got), *_w = (want);				\
	int _same = (_g && _w) ? !strcmp(_g, _w) : _g == _w;		\
	ok(_same, __VA_ARGS__);						\
	if (!_same)							\
		printf("#   got '%s', want '%s'\n", _g ? _g : "(null)",	\
		       _w ? _w : "(null)");				\
} while (0)

static inline int done(void)
{
	printf("1..%d\n", tap_n);
	return tap_failed ? 1 : 0;
}

#endif /* __TAP_H */
