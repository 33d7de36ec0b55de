/*
 * live-opts.c - what `argus record` and `argus stream` share over the
 * session's live source (session/live.c): their common options, and the
 * exit code of a live-source status (docs/cli.md).
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "session.h"

int cli_live_parse(struct argus_live_opts *o, int argc, char **argv, int *i, pid_t *pids,
                   size_t max_pids)
{
	const char *a = argv[*i], *name = o->name;
	const char *val = *i + 1 < argc ? argv[*i + 1] : NULL;
	uint64_t v;

#define NEED_VALUE()                                                                               \
	do {                                                                                       \
		if (!val) {                                                                        \
			cli_error(name, "%s needs a value", a);                                    \
			return ARGUS_EXIT_USAGE;                                                   \
		}                                                                                  \
		++*i;                                                                              \
	} while (0)

	if (!strcmp(a, "--pid") || !strcmp(a, "-p")) {
		NEED_VALUE();
		if (!cli_parse_u64(val, 1, 4194304, &v)) {
			cli_error(name, "--pid %s: not a process id", val);
			return ARGUS_EXIT_USAGE;
		}
		if (kill((pid_t)v, 0) != 0 && errno == ESRCH) {
			cli_error(name, "--pid %s: no such process", val);
			return ARGUS_EXIT_USAGE;
		}
		if (o->kext.npids == max_pids) {
			cli_error(name, "at most %zu --pid options", max_pids);
			return ARGUS_EXIT_USAGE;
		}
		pids[o->kext.npids++] = (pid_t)v;
		o->kext.pids = pids;
	} else if (!strcmp(a, "--all") || !strcmp(a, "-a")) {
		/* system-wide is the default */
	} else if (!strcmp(a, "--comm")) {
		NEED_VALUE();
		o->kext.comm = val;
	} else if (!strcmp(a, "--cgroup")) {
		NEED_VALUE();
		o->kext.cgroup = val;
	} else if (!strcmp(a, "--duration") || !strcmp(a, "-d")) {
		NEED_VALUE();
		if (!cli_parse_duration(val, &o->duration_ns) || o->duration_ns == 0) {
			cli_error(name, "--duration %s: not a duration (e.g. 10s, 500ms)", val);
			return ARGUS_EXIT_USAGE;
		}
	} else if (!strcmp(a, "--ring-size")) {
		NEED_VALUE();
		if (!cli_parse_size(val, &v) || v < 4096 || v > (1u << 30) || (v & (v - 1))) {
			cli_error(name, "--ring-size %s: a power of two from 4k to 1G", val);
			return ARGUS_EXIT_USAGE;
		}
		o->kext.ring_bytes = (uint32_t)v;
	} else if (!strcmp(a, "--full-stacks")) {
		o->kext.full_stacks_all = true;
	} else if (!strcmp(a, "--no-samples")) {
		o->kext.no_samples = true;
	} else if (!strcmp(a, "--no-irqs")) {
		o->kext.no_irqs = true;
	} else if (!strcmp(a, "--no-rt")) {
		o->no_rt = true;
	} else if (!strcmp(a, "--no-recv-enter")) {
		o->kext.no_recv_enter = true;
	} else if (!strcmp(a, "--syscalls")) {
		o->kext.syscalls = true;
	} else if (!strcmp(a, "--meter")) {
		o->kext.meter = true;
	} else if (!strcmp(a, "--")) {
		if (*i + 1 >= argc) {
			cli_error(name, "-- needs a command");
			return ARGUS_EXIT_USAGE;
		}
		o->cmd = &argv[*i + 1];
		*i = argc - 1;
	} else {
		return -1;
	}
	return 0;
#undef NEED_VALUE
}

int cli_live_exit(int status)
{
	switch (status) {
	case 0:
		return ARGUS_EXIT_OK;
	case ARGUS_KEXT_EPRIV:
		return ARGUS_EXIT_PRIV;
	case ARGUS_KEXT_ENOSUPPORT:
		return ARGUS_EXIT_NOSUPPORT;
	case ARGUS_KEXT_EINVAL:
		return ARGUS_EXIT_USAGE;
	case ARGUS_LIVE_ESINK:
		return ARGUS_EXIT_IO;
	default:
		return ARGUS_EXIT_INTERNAL;
	}
}
