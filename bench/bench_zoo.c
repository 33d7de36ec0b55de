/*
 * argus bench zoo: the bug zoo's cases live (bench/zoo/), argus against the
 * baselines in the layout of the paper's Table 4, through the runner and
 * table the corpora share (bench_cases.c). The zoo's sources and programs
 * are found through the source and build trees this argus was built from.
 */
#include "bench.h"
#include "bench_cases.h"

#ifndef ARGUS_ZOO_SRC_DIR
#define ARGUS_ZOO_SRC_DIR ""
#endif
#ifndef ARGUS_ZOO_BIN_DIR
#define ARGUS_ZOO_BIN_DIR ""
#endif

int argus_bench_zoo(int argc, char **argv)
{
	static const struct bench_corpus zoo = {
	    .name = "zoo",
	    .what = "the bug zoo's cases",
	    .cases_dir = ARGUS_ZOO_SRC_DIR,
	    .bin_dir = ARGUS_ZOO_BIN_DIR,
	    .runner = ARGUS_ZOO_SRC_DIR "/run-case.sh",
	    .score_live = true,
	};
	return bench_cases_main(&zoo, argc, argv);
}
