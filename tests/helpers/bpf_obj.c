// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * bpf_obj: look at a running stage's BPF objects from outside, with the
 * bpf() syscall only (no bpftool, no libbpf: it runs in the busybox VM).
 *
 *   bpf_obj ids PID|all          prog/map/link IDs PID (any process) holds,
 *                                "KIND ID" lines
 *   bpf_obj list                 every prog/map/link in the kernel, same lines
 *   bpf_obj alive KIND ID        exit 0 if that object still exists
 *   bpf_obj map-id PID NAME      ID of the map called NAME that PID holds
 *   bpf_obj count ID             number of entries of a hash map, or of
 *                                taken slots of a start map (an array whose
 *                                slots begin with a u64 key, 0 = free)
 *   bpf_obj fill ID N            add up to N made-up keys; prints how many fit
 *   bpf_obj atomics              exit 0 if the verifier takes an atomic
 *                                fetch-and-add (BPF atomics, 5.12), 1 if it
 *                                refuses it (its log's last line said), 2
 *                                if it cannot tell (no root: EPERM)
 *
 * fill lets a test make a stage's map full without changing the stage,
 * to see that the stage counts the inserts that fail.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/bpf.h>
#include <sys/syscall.h>

static long sys_bpf(int cmd, union bpf_attr *attr)
{
	return syscall(__NR_bpf, cmd, attr, sizeof(*attr));
}

static void usage(void)
{
	fprintf(stderr, "usage: bpf_obj list | ids PID|all | alive prog|map|link ID | map-id PID NAME |"
		" count ID | fill ID N | atomics\n");
	exit(2);
}

static unsigned long number(const char *s)
{
	char *end;
	unsigned long v;

	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno || end == s || *end) {
		fprintf(stderr, "bpf_obj: not a number: '%s'\n", s);
		exit(2);
	}
	return v;
}

static int get_fd_by_id(const char *kind, unsigned int id)
{
	union bpf_attr attr = {};
	int cmd;

	if (!strcmp(kind, "prog"))
		cmd = BPF_PROG_GET_FD_BY_ID;
	else if (!strcmp(kind, "map"))
		cmd = BPF_MAP_GET_FD_BY_ID;
	else if (!strcmp(kind, "link"))
		cmd = BPF_LINK_GET_FD_BY_ID;
	else
		usage();
	attr.prog_id = id;	/* map_id and link_id share this slot */
	return sys_bpf(cmd, &attr);
}

static int map_info(int fd, struct bpf_map_info *info)
{
	union bpf_attr attr = {};

	memset(info, 0, sizeof(*info));
	attr.info.bpf_fd = fd;
	attr.info.info_len = sizeof(*info);
	attr.info.info = (unsigned long)info;
	return sys_bpf(BPF_OBJ_GET_INFO_BY_FD, &attr);
}

static int map_fd(const char *id)
{
	int fd = get_fd_by_id("map", number(id));

	if (fd < 0) {
		fprintf(stderr, "bpf_obj: map %s: %s\n", id, strerror(errno));
		exit(1);
	}
	return fd;
}

/* Each bpf fd's fdinfo names its object: prog_id, map_id or link_id. */
static int ids(const char *pid, const char *want_name, int quiet);

static int ids_all(void)
{
	struct dirent *de;
	DIR *dir = opendir("/proc");

	while (dir && (de = readdir(dir)))
		if (de->d_name[0] >= '1' && de->d_name[0] <= '9')
			ids(de->d_name, NULL, 1);	/* gone meanwhile, or not ours to see */
	if (dir)
		closedir(dir);
	return !dir;
}

static int list(void)
{
	static const struct { const char *kind; int cmd; } kinds[] = {
		{ "prog", BPF_PROG_GET_NEXT_ID },
		{ "map", BPF_MAP_GET_NEXT_ID },
		{ "link", BPF_LINK_GET_NEXT_ID },
	};

	for (int k = 0; k < 3; k++) {
		union bpf_attr attr = {};

		while (!sys_bpf(kinds[k].cmd, &attr)) {
			printf("%s %u\n", kinds[k].kind, attr.next_id);
			attr.start_id = attr.next_id;
		}
		if (errno != ENOENT) {
			fprintf(stderr, "bpf_obj: list %s: %s\n", kinds[k].kind, strerror(errno));
			return 1;
		}
	}
	return 0;
}

static int ids(const char *pid, const char *want_name, int quiet)
{
	char path[300], line[128];
	struct dirent *de;
	DIR *dir;
	int found = 0;

	snprintf(path, sizeof(path), "/proc/%s/fdinfo", pid);
	dir = opendir(path);
	if (!dir && quiet)
		return 1;
	if (!dir) {
		fprintf(stderr, "bpf_obj: %s: %s\n", path, strerror(errno));
		return 1;
	}
	while ((de = readdir(dir))) {
		FILE *f;

		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/proc/%s/fdinfo/%s", pid, de->d_name);
		f = fopen(path, "r");
		while (f && fgets(line, sizeof(line), f)) {
			char kind[8];
			unsigned int id;

			if (sscanf(line, "%7[a-z]_id: %u", kind, &id) != 2)
				continue;
			if (want_name) {
				struct bpf_map_info info;
				int fd;

				if (strcmp(kind, "map"))
					continue;
				fd = get_fd_by_id("map", id);
				if (fd >= 0 && !map_info(fd, &info) &&
				    !strcmp(info.name, want_name) && !found) {
					printf("%u\n", id);
					found = 1;
				}
				if (fd >= 0)
					close(fd);
			} else if (!strcmp(kind, "prog") || !strcmp(kind, "map") ||
				   !strcmp(kind, "link")) {
				printf("%s %u\n", kind, id);
			}
		}
		if (f)
			fclose(f);
	}
	closedir(dir);
	return want_name && !found;
}

/* An array start map (bench/stage03_array_map/start.bpf.h): slots, key first. */
static int is_slot_array(const struct bpf_map_info *info)
{
	return info->type == BPF_MAP_TYPE_ARRAY && info->key_size == 4 &&
	       info->value_size >= 8;
}

static int count_slots(int fd, const struct bpf_map_info *info)
{
	char *val = calloc(1, info->value_size);
	union bpf_attr attr = {};
	unsigned long n = 0;
	__u64 key0;

	attr.map_fd = fd;
	attr.value = (unsigned long)val;
	for (__u32 i = 0; val && i < info->max_entries; i++) {
		attr.key = (unsigned long)&i;
		if (sys_bpf(BPF_MAP_LOOKUP_ELEM, &attr))
			return 1;
		memcpy(&key0, val, sizeof(key0));
		n += key0 != 0;
	}
	free(val);
	printf("%lu\n", n);
	return !val;
}

static int count(int fd, unsigned int key_size)
{
	char *key = calloc(2, key_size), *next = key + key_size;
	union bpf_attr attr = {};
	unsigned long n = 0;

	attr.map_fd = fd;
	attr.key = 0;	/* NULL: the first key */
	attr.next_key = (unsigned long)next;
	while (!sys_bpf(BPF_MAP_GET_NEXT_KEY, &attr)) {
		n++;
		memcpy(key, next, key_size);
		attr.key = (unsigned long)key;
	}
	printf("%lu\n", n);
	return errno == ENOENT ? 0 : 1;
}

static int fill(int fd, struct bpf_map_info *info, unsigned long want)
{
	long ncpu = sysconf(_SC_NPROCESSORS_CONF);
	size_t vsize = info->value_size;
	char *key = calloc(1, info->key_size), *val;
	union bpf_attr attr = {};
	unsigned long n = 0;

	/* per-CPU maps take one 8-byte-aligned value per possible CPU */
	if (info->type == BPF_MAP_TYPE_PERCPU_HASH || info->type == BPF_MAP_TYPE_LRU_PERCPU_HASH)
		vsize = ((vsize + 7) & ~7UL) * (ncpu > 0 ? ncpu : 1);
	val = calloc(1, vsize);
	if (is_slot_array(info)) {
		/* take free slots with made-up keys (small numbers: see below) */
		attr.map_fd = fd;
		attr.value = (unsigned long)val;
		for (__u32 i = 0; n < want && i < info->max_entries; i++) {
			__u64 k = i + 1;

			attr.key = (unsigned long)&i;
			if (sys_bpf(BPF_MAP_LOOKUP_ELEM, &attr))
				break;
			if (!memcmp(val, &(__u64){ 0 }, sizeof(k))) {
				memcpy(val, &k, sizeof(k));
				if (sys_bpf(BPF_MAP_UPDATE_ELEM, &attr))
					break;
				n++;
			}
		}
		printf("%lu\n", n);
		return 0;
	}
	attr.map_fd = fd;
	attr.key = (unsigned long)key;
	attr.value = (unsigned long)val;
	attr.flags = BPF_NOEXIST;
	/* small numbers: never the address of a kernel object */
	for (unsigned long k = 1; n < want && k <= want + info->max_entries; k++) {
		memcpy(key, &k, info->key_size < sizeof(k) ? info->key_size : sizeof(k));
		if (!sys_bpf(BPF_MAP_UPDATE_ELEM, &attr))
			n++;
		else if (errno != EEXIST)
			break;
	}
	printf("%lu\n", n);
	return 0;
}

#ifndef BPF_ATOMIC
#define BPF_ATOMIC 0xc0
#endif
#ifndef BPF_FETCH
#define BPF_FETCH 0x01
#endif

/*
 * Does the verifier take r1 = atomic_fetch_add((u64 *)(r10 - 8), r1), the
 * instruction __sync_fetch_and_add() used as a value compiles to? Before
 * 5.12 it says "BPF_STX uses reserved fields" (or BPF_XADD's words).
 */
static int atomics(void)
{
	struct bpf_insn insns[] = {
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_1, .imm = 0 },
		{ .code = BPF_STX | BPF_DW | BPF_MEM, .dst_reg = BPF_REG_10,
		  .src_reg = BPF_REG_1, .off = -8 },
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_1, .imm = 1 },
		{ .code = BPF_STX | BPF_DW | BPF_ATOMIC, .dst_reg = BPF_REG_10,
		  .src_reg = BPF_REG_1, .off = -8, .imm = BPF_ADD | BPF_FETCH },
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0, .imm = 0 },
		{ .code = BPF_JMP | BPF_EXIT },
	};
	char log[4096] = "", *last;
	union bpf_attr attr = {
		.prog_type = BPF_PROG_TYPE_SOCKET_FILTER,
		.insns = (unsigned long)insns,
		.insn_cnt = sizeof(insns) / sizeof(insns[0]),
		.license = (unsigned long)"GPL",
		.log_buf = (unsigned long)log,
		.log_size = sizeof(log),
		.log_level = 1,
	};
	int fd = sys_bpf(BPF_PROG_LOAD, &attr);

	if (fd >= 0) {
		close(fd);
		return 0;
	}
	if (errno != EINVAL && errno != EACCES) {
		fprintf(stderr, "bpf_obj: cannot load a probe: %s\n", strerror(errno));
		return 2;
	}
	/* why: the log's last line but its "processed N insns" count */
	for (;;) {
		while (*log && log[strlen(log) - 1] == '\n')
			log[strlen(log) - 1] = '\0';
		last = strrchr(log, '\n');
		last = last ? last + 1 : log;
		if (strncmp(last, "processed ", 10) || last == log)
			break;
		*last = '\0';
	}
	fprintf(stderr, "bpf_obj: the verifier refuses an atomic fetch-and-add: %s\n", last);
	return 1;
}

int main(int argc, char **argv)
{
	struct bpf_map_info info;
	int fd;

	if (argc == 2 && !strcmp(argv[1], "list"))
		return list();
	if (argc == 2 && !strcmp(argv[1], "atomics"))
		return atomics();
	if (argc < 3)
		usage();
	if (!strcmp(argv[1], "ids") && argc == 3)
		return strcmp(argv[2], "all") ? ids(argv[2], NULL, 0) : ids_all();
	if (!strcmp(argv[1], "map-id") && argc == 4)
		return ids(argv[2], argv[3], 0);
	if (!strcmp(argv[1], "alive") && argc == 4) {
		fd = get_fd_by_id(argv[2], number(argv[3]));
		if (fd < 0)
			return 1;
		close(fd);
		return 0;
	}
	if ((!strcmp(argv[1], "count") && argc == 3) || (!strcmp(argv[1], "fill") && argc == 4)) {
		fd = map_fd(argv[2]);
		if (map_info(fd, &info)) {
			fprintf(stderr, "bpf_obj: map %s: %s\n", argv[2], strerror(errno));
			return 1;
		}
		if (argc == 3)
			return is_slot_array(&info) ? count_slots(fd, &info) : count(fd, info.key_size);
		return fill(fd, &info, number(argv[3]));
	}
	usage();
	return 2;
}
