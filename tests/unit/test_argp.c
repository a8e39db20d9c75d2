// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Table and fuzz tests of parse_args(): each argv runs in a child, as a
 * stage would run it, and the test checks the exit status, the lines on
 * stderr and the options it parsed.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/wait.h>
#include "tap.h"
#include "tracer.h"	/* ARRAY_SIZE, options */

#define PROG "bio_trace"

static const struct argp_child children[] = {
	{ &common_argp, 0, NULL, 0 },
	{},
};

/* A stage that takes no arguments of its own (stages 01-07). */
static const struct argp plain_argp = {
	.children = children,
	.doc = "A stage.",
};

/* A stage with positional arguments must still get them first. */
static int npos;

static error_t pos_parse(int key, char *arg, struct argp_state *state)
{
	if (key != ARGP_KEY_ARG)
		return ARGP_ERR_UNKNOWN;
	if (++npos > 2)
		argp_error(state, "at most two numbers");
	return 0;
}

static const struct argp pos_argp = {
	.parser = pos_parse,
	.args_doc = "[INTERVAL] [COUNT]",
	.children = children,
};

/* argv[0] as the shell passes it */
static char *argv0 = PROG;

struct result {
	int status;		/* exit status, or 128 + signal */
	char out[8192];		/* stdout: the parsed options, or help */
	char err[8192];		/* stderr */
};

static void slurp(int fd, char *buf, size_t size)
{
	size_t len = 0;
	ssize_t n;

	while (len < size - 1 && (n = read(fd, buf + len, size - 1 - len)) > 0)
		len += n;
	buf[len] = '\0';
}

/* Run parse_args on argv (PROG prepended) in a child; print what it parsed. */
static void run(const struct argp *argp, int argc, char **args, struct result *r)
{
	char *argv[16] = { argv0 };
	int out[2], err[2], status;
	pid_t pid;

	for (int i = 0; i < argc && i < 14; i++)
		argv[i + 1] = args[i];
	if (pipe(out) || pipe(err)) {
		r->status = -1;
		return;
	}
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		dup2(out[1], 1);
		dup2(err[1], 2);
		close(out[0]);
		close(err[0]);
		parse_args(argp, argc + 1, argv, NULL);
		printf("door=%s disk=%s dev=%u duration=%g quiet=%d verbose=%d npos=%d\n",
		       door_name(env.door), env.disk ? env.disk : "-", env.dev,
		       env.duration, env.quiet, env.verbose, npos);
		fflush(stdout);
		_exit(0);
	}
	close(out[1]);
	close(err[1]);
	/* help text fits the pipe; read stdout first, then stderr */
	slurp(out[0], r->out, sizeof(r->out));
	slurp(err[0], r->err, sizeof(r->err));
	close(out[0]);
	close(err[0]);
	waitpid(pid, &status, 0);
	r->status = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

static int lines(const char *s)
{
	int n = 0;

	for (; *s; s++)
		n += *s == '\n';
	return n;
}

/* A usage error: exit 2, "PROG: <what>" then the --help hint, nothing on stdout. */
static bool usage_error(const struct result *r, const char *what)
{
	char want[256];

	snprintf(want, sizeof(want), PROG ": %s", what);
	return r->status == 2 && lines(r->err) == 2 && !strncmp(r->err, want, strlen(want)) &&
	       strstr(r->err, "\nTry `" PROG " --help'") && !r->out[0];
}

struct bad_case {
	const char *args[4];
	const char *msg;	/* start of the message after "PROG: " */
};

static const struct bad_case bad[] = {
	{ { "--bogus" }, "unrecognized option '--bogus'" },
	{ { "-Z" }, "invalid option -- 'Z'" },
	{ { "-a" }, "option requires an argument -- 'a'" },
	{ { "--attach" }, "option '--attach' requires an argument" },
	{ { "--duration" }, "option '--duration' requires an argument" },
	{ { "-d" }, "option requires an argument -- 'd'" },
	{ { "-a", "sideways" }, "unknown door 'sideways'" },
	{ { "-a", "" }, "unknown door ''" },
	{ { "-a", "KPROBE" }, "unknown door 'KPROBE'" },
	{ { "--attach=kprobe,fentry" }, "unknown door 'kprobe,fentry'" },
	{ { "--attach", "raw_tp" }, "unknown door 'raw_tp'" },	/* no kernel we support needs it */
	{ { "--duration", "0" }, "--duration needs a positive number of seconds, not '0'" },
	{ { "--duration", "-1" }, "--duration needs" },
	{ { "--duration", "abc" }, "--duration needs" },
	{ { "--duration", "" }, "--duration needs" },
	{ { "--duration", "5s" }, "--duration needs" },
	{ { "--duration", "nan" }, "--duration needs" },
	{ { "--duration", "inf" }, "--duration needs" },
	{ { "--duration", "1e8" }, "--duration needs" },
	{ { "--duration", "1e-400" }, "--duration needs" },	/* underflows to 0 */
	{ { "--duration", "1e999" }, "--duration needs" },	/* overflows */
	{ { "-d", "no_such_disk" }, "no such disk 'no_such_disk'" },
	{ { "-d", "" }, "no such disk ''" },
	{ { "-d", "/dev/" }, "no such disk '/dev/'" },
	{ { "-d", "../../../etc" }, "no such disk" },
	{ { "-d", "." }, "no such disk '.'" },
	{ { "-d", ".." }, "no such disk '..'" },
	{ { "extra" }, "unexpected argument 'extra'" },
	{ { "-q", "1", "2" }, "unexpected argument '1'" },
	{ { "--", "-q" }, "unexpected argument '-q'" },
	{ { "-q", "-a", "kprobe", "x" }, "unexpected argument 'x'" },
};

struct good_case {
	const char *args[4];
	const char *parsed;	/* start of the child's "door=… " line */
};

static const struct good_case good[] = {
	{ {}, "door=auto disk=- dev=0 duration=0 quiet=0 verbose=0" },
	{ { "-a", "kprobe" }, "door=kprobe " },
	{ { "-afentry" }, "door=fentry " },
	{ { "--attach=tracepoint" }, "door=tracepoint " },
	{ { "-a", "kprobe", "-a", "auto" }, "door=auto " },	/* the last one wins */
	{ { "--duration", "1.5" }, "door=auto disk=- dev=0 duration=1.5 " },
	{ { "--duration=0.001" }, "door=auto disk=- dev=0 duration=0.001 " },
	{ { "--dur", "2" }, "door=auto disk=- dev=0 duration=2 " },	/* argp abbreviation */
	{ { "--duration", "1e7" }, "door=auto disk=- dev=0 duration=1e+07 " },
	{ { "-qv" }, "door=auto disk=- dev=0 duration=0 quiet=1 verbose=1" },
	{ { "--quiet", "--verbose" }, "door=auto disk=- dev=0 duration=0 quiet=1 verbose=1" },
};

static void table(void)
{
	struct result r;

	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		int argc = 0;

		while (argc < 4 && bad[i].args[argc])
			argc++;
		run(&plain_argp, argc, (char **)bad[i].args, &r);
		ok(usage_error(&r, bad[i].msg), "bad input %s%s%s%s%s%s%s: exit 2, '%s' + hint",
		   bad[i].args[0], argc > 1 ? " " : "", argc > 1 ? bad[i].args[1] : "",
		   argc > 2 ? " " : "", argc > 2 ? bad[i].args[2] : "",
		   argc > 3 ? " " : "", argc > 3 ? bad[i].args[3] : "", bad[i].msg);
		if (!usage_error(&r, bad[i].msg))
			printf("#   status %d, stderr: %s#   stdout: %s\n", r.status, r.err, r.out);
	}
	for (size_t i = 0; i < ARRAY_SIZE(good); i++) {
		int argc = 0;
		bool same;

		while (argc < 4 && good[i].args[argc])
			argc++;
		run(&plain_argp, argc, (char **)good[i].args, &r);
		same = r.status == 0 && !r.err[0] &&
		       !strncmp(r.out, good[i].parsed, strlen(good[i].parsed));
		ok(same, "good input #%zu %s: parses to %s", i, argc ? good[i].args[0] : "(none)",
		   good[i].parsed);
		if (!same)
			printf("#   status %d, stdout: %s#   stderr: %s\n", r.status, r.out, r.err);
	}
}

static void help(void)
{
	const char *forms[] = { "-h", "--help", "--usage", "-?" };
	struct result r;

	for (size_t i = 0; i < ARRAY_SIZE(forms); i++) {
		run(&plain_argp, 1, (char **)&forms[i], &r);
		ok(r.status == 0 && !strncmp(r.out, "Usage: " PROG, 13) && !r.err[0] &&
		   !strstr(r.out, "door=auto"), "%s: usage on stdout, exit 0, nothing parsed", forms[i]);
	}
	run(&plain_argp, 1, (char *[]){ "--help" }, &r);
	ok(strstr(r.out, "--duration=SECONDS") && strstr(r.out, "-a, --attach=DOOR") &&
	   strstr(r.out, "-d, --disk=DISK"), "--help lists the shared options");
}

/* A disk this machine has: its dev_t must match /sys/class/block/NAME/dev. */
static void real_disk(void)
{
	unsigned int major, minor;
	char want[160], name[64], dev[80];
	struct result r;
	FILE *f = popen("ls /sys/block 2>/dev/null | head -n 1", "r");

	if (!f || !fgets(name, sizeof(name), f) || !*strtok(name, "\n")) {
		printf("ok %d # SKIP -d a real disk: no block devices\n", ++tap_n);
		if (f)
			pclose(f);
		return;
	}
	pclose(f);
	snprintf(want, sizeof(want), "/sys/block/%s/dev", name);
	f = fopen(want, "r");
	if (!f || fscanf(f, "%u:%u", &major, &minor) != 2) {
		ok(0, "-d %s: its dev file reads", name);
		if (f)
			fclose(f);
		return;
	}
	fclose(f);
	snprintf(want, sizeof(want), "disk=/dev/%s dev=%u ", name, (major << 20) | minor);
	snprintf(dev, sizeof(dev), "/dev/%s", name);
	run(&plain_argp, 2, (char *[]){ "-d", dev }, &r);
	ok(r.status == 0 && strstr(r.out, want), "-d /dev/%s: dev_t %u:%u as the kernel's MKDEV",
	   name, major, minor);
}

/* getopt's own messages name argv[0]: the short name, as argp's do. */
static void path_argv0(void)
{
	struct result r;

	argv0 = "/usr/local/bin/" PROG;
	run(&plain_argp, 1, (char *[]){ "-a" }, &r);
	ok(usage_error(&r, "option requires an argument -- 'a'"),
	   "run by path: getopt's message names the program, not the path");
	run(&plain_argp, 1, (char *[]){ "x" }, &r);
	ok(usage_error(&r, "unexpected argument 'x'"), "run by path: so do ours");
	argv0 = PROG;
}

static void positional(void)
{
	struct result r;

	npos = 0;
	run(&pos_argp, 3, (char *[]){ "-q", "5", "10" }, &r);
	ok(r.status == 0 && strstr(r.out, "quiet=1 verbose=0 npos=2"),
	   "a stage's own positional arguments reach its parser first");
	run(&pos_argp, 3, (char *[]){ "5", "10", "15" }, &r);
	ok(usage_error(&r, "at most two numbers"), "and the stage's parser refuses extra ones");
}

/*
 * Fuzz: argv built from option fragments and junk, fixed seed so a
 * failure repeats. Whatever comes in, the parser must exit 0 with sane
 * options, or 2 with one line and the hint; never crash or hang.
 */
static void fuzz(int rounds)
{
	static const char *const frag[] = {
		"-a", "-d", "--duration", "-q", "-v", "--attach", "--disk", "--", "-",
		"kprobe", "fentry", "tracepoint", "raw_tp", "auto", "0", "1", "-1", "0.5",
		"1e3", "1e30", "nan", "0x10", "loop0", "/dev/null", "", "=", "--duration=",
		"--attach=", "-qqqq", "-aq", "-dq", "--q", "--dis", "%s%n", "\xff\xfe",
	};
	int bad_runs = 0, errors = 0, oks = 0;
	unsigned int seed = 8;
	struct result r;

	for (int i = 0; i < rounds; i++) {
		char *args[6], junk[6][24];
		int argc = 1 + rand_r(&seed) % 4;

		for (int a = 0; a < argc; a++) {
			if (rand_r(&seed) % 8) {
				args[a] = (char *)frag[rand_r(&seed) % ARRAY_SIZE(frag)];
				continue;
			}
			/* 1..23 random bytes; no NUL, no newline (messages quote them) */
			int len = 1 + rand_r(&seed) % 23;

			for (int b = 0; b < len; b++)
				junk[a][b] = 11 + rand_r(&seed) % 245;
			junk[a][len] = '\0';
			args[a] = junk[a];
		}
		run(&plain_argp, argc, args, &r);
		if (r.status == 0 && !strncmp(r.out, "Usage:", 6)) {
			oks++;	/* junk such as "-qh" asks for help */
		} else if (r.status == 0) {
			char door[32];
			double dur;
			unsigned int dev;
			char disk[300];

			oks++;
			if (sscanf(r.out, "door=%31s disk=%299s dev=%u duration=%lf", door, disk,
				   &dev, &dur) != 4 || !(dur >= 0 && dur <= 1e7) ||
			    (strcmp(disk, "-") && !dev) || r.err[0]) {
				bad_runs++;
				printf("#   fuzz %d: parsed to an invalid state: %s", i, r.out);
			}
		} else if (r.status == 2 && lines(r.err) == 2 && strstr(r.err, "Try `") && !r.out[0]) {
			errors++;
		} else {
			bad_runs++;
			printf("#   fuzz %d: status %d, stderr: %s", i, r.status, r.err);
		}
	}
	ok(bad_runs == 0, "fuzz: %d argvs: %d parsed to sane options, %d usage errors, "
	   "no crash or odd exit", rounds, oks, errors);
}

int main(void)
{
	table();
	help();
	real_disk();
	path_argv0();
	positional();
	fuzz(2000);
	return done();
}
