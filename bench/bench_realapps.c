/*
 * argus bench realapps: unmodified Debian applications hanging for real,
 * common reasons (bench/realapps/: a stopped service, a stopped FUSE
 * daemon, a big input file), run live like the bug zoo and scored on the
 * live daemon's answer (process, thread, function; false stalls counted),
 * through the runner and table the corpora share (bench_cases.c).
 */
#include <stddef.h>

#include "bench.h"
#include "bench_cases.h"

#ifndef ARGUS_REALAPPS_SRC_DIR
#define ARGUS_REALAPPS_SRC_DIR ""
#endif
#ifndef ARGUS_ZOO_SRC_DIR
#define ARGUS_ZOO_SRC_DIR ""
#endif

int argus_bench_realapps(int argc, char **argv)
{
	static const struct bench_corpus realapps = {
	    .name = "realapps",
	    .what = "unmodified apps' real hangs",
	    .cases_dir = ARGUS_REALAPPS_SRC_DIR,
	    .bin_dir = NULL,
	    .runner = ARGUS_ZOO_SRC_DIR "/run-case.sh",
	    .score_live = true,
	};
	return bench_cases_main(&realapps, argc, argv);
}
