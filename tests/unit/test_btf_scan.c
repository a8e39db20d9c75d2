// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Unit tests of common/btf_scan.c (stage 10's discovery) on synthetic BTF. */
#include <errno.h>
#include <stdlib.h>
#include <unistd.h>
#include "tap.h"
#include "btf_scan.h"

static char dir[] = "/tmp/test_btf_scan.XXXXXX";

/* A function name(params...) returning void; each param is a type id. */
static void func(struct btf *btf, const char *name, int n, const int *params)
{
	int proto = btf__add_func_proto(btf, 0);

	for (int i = 0; i < n; i++) {
		char arg[16];

		snprintf(arg, sizeof(arg), "a%d", i);
		btf__add_func_param(btf, arg, params[i]);
	}
	btf__add_func(btf, name, BTF_FUNC_GLOBAL, proto);
}

/* The position found for name in fs, -1 if absent. */
static int arg_of(const struct bio_funcs *fs, const char *name)
{
	for (int i = 0; i < fs->n; i++)
		if (!strcmp(fs->f[i].name, name))
			return fs->f[i].arg;
	return -1;
}

int main(void)
{
	struct bio_funcs fs = {}, mods = {};
	struct btf *btf, *mod;
	int i32, bio, rq, bio_p, bio_pp, cbio, cbio_p, bio_t, bio_tp, vbio_tp, rq_p, fwd, fwd_p;
	char path[128];
	FILE *f;

	btf = btf__new_empty();
	ok(btf != NULL, "an empty BTF to build on");
	if (!btf)
		return done();
	i32 = btf__add_int(btf, "int", 4, BTF_INT_SIGNED);
	bio = btf__add_struct(btf, "bio", 8);
	btf__add_field(btf, "bi_size", i32, 0, 0);
	rq = btf__add_struct(btf, "request", 8);
	btf__add_field(btf, "tag", i32, 0, 0);
	bio_p = btf__add_ptr(btf, bio);			/* struct bio * */
	bio_pp = btf__add_ptr(btf, bio_p);		/* struct bio ** */
	cbio = btf__add_const(btf, bio);
	cbio_p = btf__add_ptr(btf, cbio);		/* const struct bio * */
	bio_t = btf__add_typedef(btf, "bio_t", bio);
	bio_tp = btf__add_ptr(btf, bio_t);		/* bio_t * */
	vbio_tp = btf__add_volatile(btf, btf__add_typedef(btf, "bio_ptr_t", bio_p));
	rq_p = btf__add_ptr(btf, rq);

	func(btf, "submit_bio", 1, (int[]){ bio_p });
	func(btf, "bio_endio_const", 1, (int[]){ cbio_p });
	func(btf, "via_typedef", 2, (int[]){ i32, bio_tp });
	func(btf, "via_volatile_typedef_ptr", 3, (int[]){ i32, i32, vbio_tp });
	func(btf, "takes_bio_pp", 1, (int[]){ bio_pp });
	func(btf, "two_bios", 3, (int[]){ rq_p, bio_p, bio_p });
	func(btf, "fifth", 5, (int[]){ i32, i32, i32, i32, bio_p });
	func(btf, "sixth", 6, (int[]){ i32, i32, i32, i32, i32, bio_p });
	func(btf, "request_only", 1, (int[]){ rq_p });
	func(btf, "bio_by_value", 1, (int[]){ bio });
	func(btf, "no_params", 0, NULL);
	func(btf, "__bpf_trace_block_bio_queue", 2, (int[]){ i32, bio_p });
	func(btf, "__probestub_block_bio_queue", 2, (int[]){ i32, bio_p });
	func(btf, "__traceiter_block_bio_queue", 2, (int[]){ i32, bio_p });
	func(btf, "submit_bio", 1, (int[]){ bio_p });	/* a static twin */
	/* a struct bio * variable is no function */
	btf__add_var(btf, "a_bio", BTF_VAR_GLOBAL_ALLOCATED, bio_p);

	is_int(btf_scan_bio(btf, 0, NULL, &fs), 0, "scan returns 0");
	is_int(arg_of(&fs, "submit_bio"), 0, "struct bio * as first argument: position 0");
	is_int(arg_of(&fs, "bio_endio_const"), 0, "const struct bio * counts");
	is_int(arg_of(&fs, "via_typedef"), 1, "a pointer to a typedef of struct bio counts");
	is_int(arg_of(&fs, "via_volatile_typedef_ptr"), 2,
	       "volatile typedef of struct bio * counts");
	is_int(arg_of(&fs, "takes_bio_pp"), -1, "struct bio ** does not count");
	is_int(arg_of(&fs, "two_bios"), 1, "two bio parameters: the first one's position");
	is_int(arg_of(&fs, "fifth"), 4, "the fifth argument (PT_REGS_PARM5) is kept");
	is_int(arg_of(&fs, "sixth"), -1, "the sixth argument is skipped");
	is_int(fs.far_arg, 1, "... and counted as out of a kprobe's reach");
	is_int(arg_of(&fs, "request_only"), -1, "no bio parameter: not listed");
	is_int(arg_of(&fs, "bio_by_value"), -1, "struct bio by value: not listed");
	is_int(arg_of(&fs, "__bpf_trace_block_bio_queue"), -1, "__bpf_trace_ glue skipped");
	is_int(arg_of(&fs, "__probestub_block_bio_queue"), -1, "__probestub_ glue skipped");
	is_int(arg_of(&fs, "__traceiter_block_bio_queue"), -1, "__traceiter_ glue skipped");
	is_int(fs.glue, 3, "... and the three counted");
	is_int(fs.n, 7, "seven found before sorting (the twin too)");
	bio_funcs_sort(&fs);
	is_int(fs.n, 6, "the twin dropped by sort");
	is_int(fs.dup, 1, "... and counted");
	is_str(fs.n ? fs.f[0].name : NULL, "bio_endio_const", "sorted by name");

	/* A module's split BTF: its own types only, on top of the base. */
	mod = btf__new_empty_split(btf);
	ok(mod != NULL, "a module's split BTF on top of it");
	if (mod) {
		__u32 first = btf__type_cnt(btf);

		func(mod, "loop_queue_bio", 2, (int[]){ rq_p, bio_p });
		fwd = btf__add_fwd(mod, "bio", BTF_FWD_STRUCT);
		fwd_p = btf__add_ptr(mod, fwd);
		func(mod, "fwd_bio", 1, (int[]){ fwd_p });
		is_int(btf_scan_bio(mod, first, "loop", &mods), 0, "module scan returns 0");
		is_int(mods.n, 2, "the module's two functions, not the base's again");
		is_int(arg_of(&mods, "loop_queue_bio"), 1, "module function with the base's bio");
		is_int(arg_of(&mods, "fwd_bio"), 0, "a forward-declared struct bio counts");
		is_str(mods.n ? mods.f[0].module : NULL, "loop", "the module's name is kept");
		btf__free(mod);
	}

	/* The available_filter_functions filter. */
	if (!mkdtemp(dir)) {
		perror("mkdtemp");
		return 1;
	}
	snprintf(path, sizeof(path), "%s/available_filter_functions", dir);
	f = fopen(path, "w");
	fputs("submit_bio\nvia_typedef [some_mod]\ntwo_bios\nunrelated\n", f);
	fclose(f);
	is_int(bio_funcs_filter(&fs, path), 0, "filter reads the list");
	is_int(fs.n, 3, "only the listed functions are kept");
	is_int(fs.not_traceable, 3, "... the others counted as not traceable");
	is_int(arg_of(&fs, "via_typedef"), 1, "a name with [module] matches");
	f = fopen(path, "w");
	fclose(f);
	is_int(bio_funcs_filter(&fs, path), -ENODATA, "an empty list: -ENODATA, list kept");
	is_int(fs.n, 3, "... unchanged");
	unlink(path);
	is_int(bio_funcs_filter(&fs, path), -ENOENT, "no file: -ENOENT");
	rmdir(dir);

	bio_funcs_free(&fs);
	bio_funcs_free(&mods);
	btf__free(btf);
	return done();
}
