/*
 * builtin-record.c - `argus record`: trace the machine (or a command and its
 * children) with the eBPF tracer - and with --hooks the command's hook
 * rings - into an .argus file (the session's live source, session/live.c).
 * (The options it shares with `argus stream` are in live-opts.c.)
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "session.h"

#define RECORD_ZSTD_LEVEL 1

/* ---- argus record ---------------------------------------------------------- */
static void record_usage(FILE *f)
{
	fprintf(f,
	        "usage: argus record -o FILE [--duration S] [--pid P... | --all] [--comm NAME]\n"
	        "                    [--cgroup DIR] [--ring-size SIZE] [--no-samples] [--no-irqs]\n"
	        "                    [--no-recv-enter] [--syscalls] [--full-stacks] [--no-rt]\n"
	        "                    [--ready-fd FD] [--meter]\n"
	        "                    [--hooks] [-- CMD ARGS...]\n\n"
	        "Trace the machine (default), some processes and their children, or CMD and its\n"
	        "children, into an .argus trace until SIGINT/SIGTERM, --duration or CMD's exit.\n"
	        "--hooks (with CMD) also preloads libargus-hooks.so into CMD, as `argus run`\n"
	        "does, and merges its hook records with the kernel's into the same trace.\n"
	        "--syscalls adds per-call capture on the syscall exit tracepoint (every\n"
	        "syscall of every task pays for it); the default uses none.\n"
	        "--full-stacks: every sample also copies the registers and 8 KiB of user\n"
	        "stack, unwound with the binaries' CFI (libraries without frame pointers).\n"
	        "Needs root or CAP_BPF + CAP_PERFMON. What is captured: docs/kext.md.\n");
}

int cmd_record(int argc, char **argv)
{
	struct argus_live_opts o = {.name = "record"};
	const char *out = NULL;
	bool hooks = false;
	char lib[4096];
	pid_t pids[64];
	int rc;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			record_usage(stdout);
			return ARGUS_EXIT_OK;
		}
		if (!strcmp(argv[i], "-o") || !strcmp(argv[i], "--output")) {
			if (i + 1 >= argc) {
				cli_error("record", "-o needs a file name");
				return ARGUS_EXIT_USAGE;
			}
			out = argv[++i];
			continue;
		}
		if (!strcmp(argv[i], "--hooks")) {
			hooks = true;
			continue;
		}
		if (!strcmp(argv[i], "--ready-fd")) {
			uint64_t fd;

			if (i + 1 >= argc || !cli_parse_u64(argv[i + 1], 3, 65535, &fd)) {
				cli_error("record", "--ready-fd needs a descriptor number >= 3");
				return ARGUS_EXIT_USAGE;
			}
			o.ready_fd = (int)fd;
			i++;
			continue;
		}
		rc = cli_live_parse(&o, argc, argv, &i, pids, 64);
		if (rc > 0)
			return rc;
		if (rc < 0) {
			cli_error("record", "unknown option '%s' (see argus record --help)",
			          argv[i]);
			return ARGUS_EXIT_USAGE;
		}
	}
	if (!out) {
		cli_error("record", "-o FILE is required (see argus record --help)");
		return ARGUS_EXIT_USAGE;
	}
	if (o.cmd && o.kext.npids) {
		cli_error("record", "--pid and a command exclude each other");
		return ARGUS_EXIT_USAGE;
	}
	if (hooks && !o.cmd) {
		cli_error("record",
		          "--hooks needs a command (argus record --hooks -o FILE -- CMD)");
		return ARGUS_EXIT_USAGE;
	}
	if (hooks) {
		if (!cli_hooks_lib(lib, sizeof(lib))) {
			cli_error("record",
			          "libargus-hooks.so not found (set ARGUS_HOOKS_LIB to its path)");
			return ARGUS_EXIT_IO;
		}
		o.hooks_lib = lib;
	}

	struct argus_trace_meta meta;
	struct argus_trace_writer *w;
	struct argus_trace_error terr;
	argus_trace_meta_init(&meta, "argus record");
	/* zstd level 1: compression is the reader's largest cost (a third or
	 * more of its time on a busy machine), and on scheduler-heavy traces
	 * level 1 is ~25 % faster than 3 and compresses as well (~4.5 bytes a
	 * record) */
	struct argus_trace_writer_opts wo = {.zstd_level = RECORD_ZSTD_LEVEL};
	if (argus_trace_writer_open(&w, out, &meta, &wo, &terr)) {
		cli_error("record", "%s", terr.msg);
		return ARGUS_EXIT_IO;
	}
	struct argus_live *l;
	rc = cli_live_exit(argus_live_open(&l, &o));
	if (rc) {
		argus_trace_writer_close(w, &terr);
		unlink(out); /* nothing was recorded */
		return rc;
	}
	struct argus_sink sink = argus_trace_writer_sink(w);
	rc = cli_live_exit(argus_live_run(l, &sink));
	struct argus_live_stats st;
	argus_live_get_stats(l, &st);
	argus_live_close(l);
	if (argus_trace_writer_close(w, &terr)) {
		cli_error("record", "%s", terr.msg);
		return ARGUS_EXIT_IO;
	}
	fprintf(
	    stderr,
	    "argus record: %llu records to %s; lost: %llu (kernel rings; %llu of them shed "
	    "outside the app set), %llu stacks, %llu program runs skipped (nested); late: %llu\n",
	    (unsigned long long)st.events, out, (unsigned long long)st.ring_drops,
	    (unsigned long long)st.ring_shed, (unsigned long long)st.stack_drops,
	    (unsigned long long)st.nested, (unsigned long long)st.late);
	if (hooks)
		fprintf(stderr, "argus record: %llu hook records, %llu lost (hook rings)\n",
		        (unsigned long long)st.hook_events, (unsigned long long)st.hook_drops);
	return rc;
}
