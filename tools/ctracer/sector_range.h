/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* A range of sectors as a user writes it: "2048" or "2048-4095". */
#ifndef __SECTOR_RANGE_H
#define __SECTOR_RANGE_H

/*
 * START or START-END, decimal sectors of 512 bytes, END at least START:
 * 0, or -1 for anything else (" 5", "+5", 0x10, "-5"; 010 is ten).
 */
int parse_sector_range(const char *arg, unsigned long long *first, unsigned long long *last);

#endif /* __SECTOR_RANGE_H */
