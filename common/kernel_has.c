// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * What this kernel has, asked at run time, never read off a version
 * number: kprobes, an fentry or kprobe attach on one function, a
 * tracepoint tp_btf can take, and BIO_CLONED's bit. Which door a stage
 * then loads is doors.c's choice.
 */
#include <errno.h>
#include <glob.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/syscall.h>
#include <linux/perf_event.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include "kernel_has.h"
#include "tracefs.h"

bool kprobes_supported(void)
{
	char path[256];

	/* libbpf uses the kprobe PMU, or legacy kprobe_events in tracefs */
	if (access("/sys/bus/event_source/devices/kprobe/type", F_OK) == 0)
		return true;
	snprintf(path, sizeof(path), "%s/kprobe_events", tracefs_root());
	return access(path, F_OK) == 0;
}

int fentry_probe(struct btf *vmlinux, const char *func, __u64 cookie)
{
	struct bpf_insn insns[] = {
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0 },
		{ .code = BPF_JMP | BPF_EXIT },
	};
	int id = btf__find_by_name_kind(vmlinux, func, BTF_KIND_FUNC);
	LIBBPF_OPTS(bpf_prog_load_opts, opts,
		    .expected_attach_type = BPF_TRACE_FENTRY,
		    .attach_btf_id = id);
	int fd, link, err;

	if (id < 0)
		return -ENOENT;
	fd = bpf_prog_load(BPF_PROG_TYPE_TRACING, "door_probe", "GPL", insns, 2, &opts);
	if (fd < 0)
		return -errno;
	/*
	 * A function in BTF may still be notrace (an inline one kept out of
	 * line, e.g. __blk_mq_end_request on 6.1): only an attach tells.
	 */
	if (cookie) {
		LIBBPF_OPTS(bpf_link_create_opts, lo, .tracing.cookie = cookie);

		link = bpf_link_create(fd, 0, BPF_TRACE_FENTRY, &lo);
	} else {
		link = bpf_raw_tracepoint_open(NULL, fd);
	}
	err = link < 0 ? -errno : 0;
	if (link >= 0)
		close(link);
	close(fd);
	return err;
}

/* Open (and close) a kprobe perf event on func: refused if notrace. */
int kprobe_probe(struct btf *vmlinux, const char *func)
{
	struct perf_event_attr attr = { .size = sizeof(attr) };
	FILE *f;
	int type, fd;

	if (btf__find_by_name_kind(vmlinux, func, BTF_KIND_FUNC) < 0)
		return -ENOENT;
	f = fopen("/sys/bus/event_source/devices/kprobe/type", "r");
	if (!f)
		return 0;	/* legacy kprobe_events only: trust BTF */
	if (fscanf(f, "%d", &type) != 1)
		type = -1;
	fclose(f);
	if (type < 0)
		return 0;
	attr.type = type;
	attr.config1 = (__u64)(unsigned long)func;
	fd = syscall(__NR_perf_event_open, &attr, -1, 0, -1, PERF_FLAG_FD_CLOEXEC);
	if (fd < 0)
		return -errno;
	close(fd);
	return 0;
}

/*
 * Before 5.11 the block tracepoints passed the request queue first
 * (btf_trace_<tp>: void *, struct request_queue *, ...): a program
 * written for today's arguments would read the queue as its bio or
 * request. Refused: the function doors serve those kernels.
 */
static bool queue_first(const struct btf *btf, int id)
{
	const struct btf_type *t = btf__type_by_id(btf, btf__type_by_id(btf, id)->type);

	if (!btf_is_ptr(t))
		return false;
	t = btf__type_by_id(btf, t->type);
	if (!btf_is_func_proto(t) || btf_vlen(t) < 2)
		return false;
	t = btf__type_by_id(btf, btf_params(t)[1].type);
	if (!btf_is_ptr(t))
		return false;
	t = btf__type_by_id(btf, t->type);
	return btf_is_struct(t) && !strcmp(btf__name_by_offset(btf, t->name_off), "request_queue");
}

const char *tp_missing(struct btf *vmlinux, const char *tp)
{
	char path[512];
	glob_t g = {};
	int id;

	snprintf(path, sizeof(path), "btf_trace_%s", tp);
	id = btf__find_by_name_kind(vmlinux, path, BTF_KIND_TYPEDEF);
	if (id < 0)
		return "has no BTF type";
	/* block_bio_complete kept its queue (and the programs take it) */
	if (strcmp(tp, "block_bio_complete") && queue_first(vmlinux, id))
		return "passes the request queue first (before 5.11)";
	if (!tracefs_root()[0])
		return NULL;	/* tracefs not mounted: the BTF type must do */
	/* in whichever group it is: block, filemap, workqueue ... */
	snprintf(path, sizeof(path), "%s/events/*/%s", tracefs_root(), tp);
	id = glob(path, GLOB_NOSORT, NULL, &g);
	globfree(&g);
	return id ? "missing" : NULL;
}

const char *fentry_why(struct btf *vmlinux, int err)
{
	static char why[80];
	static int any = 1;	/* bpf_fentry_test1's probe; 1: not yet made */

	if (err == -ENOENT)
		return "no such function";
	if (err == -EPERM)
		return "refused by this kernel (EPERM)";
	/*
	 * One function refused, or all of them? bpf_fentry_test1() is kept
	 * out of line for BPF's own tests of fentry: where it cannot be
	 * traced either, the kernel attaches no trampoline at all (arm64
	 * before 6.4: no ftrace direct calls).
	 */
	if (any == 1)
		any = fentry_probe(vmlinux, "bpf_fentry_test1", 0);
	if (!any || any == -ENOENT)
		return "function cannot be traced";
	snprintf(why, sizeof(why), "this kernel cannot attach fentry programs (%s)",
		 err == -524 ? "ENOTSUPP" : strerror(-err));
	return why;
}


/* The value of enumerator name in the kernel's BTF, or -1. */
static long btf_enum_value(const struct btf *vmlinux, const char *name)
{
	for (__u32 id = 1; id < btf__type_cnt(vmlinux); id++) {
		const struct btf_type *t = btf__type_by_id(vmlinux, id);
		const struct btf_enum *e = btf_enum(t);

		if (!btf_is_enum(t))
			continue;
		for (int i = 0; i < btf_vlen(t); i++, e++)
			if (!strcmp(btf__name_by_offset(vmlinux, e->name_off), name))
				return e->val;
	}
	return -1;
}

__u32 bio_cloned_flag(const struct btf *vmlinux)
{
	long bit = vmlinux ? btf_enum_value(vmlinux, "BIO_CLONED") : -1;

	/* bit 1 on 6.1, 6.12 and 6.18: the default if BTF does not say */
	return bit < 0 || bit > 31 ? 1U << 1 : 1U << bit;
}

