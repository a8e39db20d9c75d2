// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * vload: the loader of the verifier corner. Each exercise is one small
 * BPF program, vload.bpf.c, built into this loader through its skeleton
 * the way every stage is: open, set read-only data, load, attach. Every
 * program keeps the same two globals: targ_dev (read-only, the disk of -d)
 * and count (what it counted); one with a ring buffer named "events" has
 * its records counted here too. Ctrl-C prints the counts.
 *
 *   vload -d DISK
 */
#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <bpf/libbpf.h>
#include "options.h"
#include "vload.skel.h"

static volatile sig_atomic_t exiting;
static unsigned long long records;

static void on_signal(int sig)
{
	exiting = 1;
}

/* libbpf's warnings carry the verifier log the checker explains: keep them. */
static int print_warnings(enum libbpf_print_level level, const char *fmt, va_list args)
{
	if (level == LIBBPF_DEBUG)
		return 0;
	return vfprintf(stderr, fmt, args);
}

/* The door a program's SEC() prefix names, as the stages' door lines say. */
static const char *door_of(const char *sec)
{
	if (!strncmp(sec, "fentry/", 7) || !strncmp(sec, "fexit/", 6))
		return "fentry";
	if (!strncmp(sec, "kprobe/", 7) || !strncmp(sec, "kretprobe/", 10))
		return "kprobe";
	return "tracepoint";	/* tp_btf/, raw_tp/, tracepoint/ */
}

static int on_record(void *ctx, void *data, size_t size)
{
	records++;
	return 0;
}

int main(int argc, char **argv)
{
	struct sigaction sa = { .sa_handler = on_signal };
	struct ring_buffer *rb = NULL;
	struct bpf_program *prog;
	struct vload_bpf *skel;
	struct bpf_map *events;
	unsigned int dev;
	int err;

	if (argc != 3 || strcmp(argv[1], "-d")) {
		fprintf(stderr, "usage: vload -d DISK\n");
		return 2;
	}
	dev = disk_to_dev(argv[2]);
	if (!dev) {
		fprintf(stderr, "vload: no such disk '%s'\n", argv[2]);
		return 2;
	}
	libbpf_set_print(print_warnings);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);

	skel = vload_bpf__open();
	if (!skel) {
		fprintf(stderr, "vload: cannot open BPF object: %s\n", strerror(errno));
		return 1;
	}
	skel->rodata->targ_dev = dev;
	err = vload_bpf__load(skel);
	if (err) {
		fprintf(stderr, "vload: cannot load BPF object: %s\n", strerror(-err));
		goto out;
	}
	err = vload_bpf__attach(skel);
	if (err) {
		fprintf(stderr, "vload: cannot attach: %s\n", strerror(-err));
		goto out;
	}
	events = bpf_object__find_map_by_name(skel->obj, "events");
	if (events && bpf_map__type(events) == BPF_MAP_TYPE_RINGBUF) {
		rb = ring_buffer__new(bpf_map__fd(events), on_record, NULL, NULL);
		if (!rb) {
			err = -errno;
			fprintf(stderr, "vload: cannot read the ring buffer: %s\n", strerror(-err));
			goto out;
		}
	}
	bpf_object__for_each_program(prog, skel->obj)
		fprintf(stderr, "%s: %s door, %s\n", bpf_program__name(prog),
			door_of(bpf_program__section_name(prog)),
			bpf_program__section_name(prog));
	fprintf(stderr, "Tracing %s... Hit Ctrl-C to end.\n", argv[2]);
	while (!exiting) {
		if (rb)
			ring_buffer__poll(rb, 100);
		else
			usleep(100000);
	}
	if (rb)
		ring_buffer__consume(rb);
	printf("count %llu\n", (unsigned long long)skel->bss->count);
	if (rb)
		printf("records %llu\n", records);
out:
	ring_buffer__free(rb);
	vload_bpf__destroy(skel);
	return err ? 1 : 0;
}
