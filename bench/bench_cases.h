/*
 * bench_cases.h - one runner and table for the corpora of live hang cases
 * (bench_cases.c): the bug zoo (bench/zoo/) and the real apps
 * (bench/realapps/). Each case is a folder with a truth file and a driver,
 * run by bench/zoo/run-case.sh and scored by bench/zoo/score.py.
 */
#ifndef ARGUS_BENCH_CASES_H
#define ARGUS_BENCH_CASES_H

#include <stdbool.h>

struct bench_corpus {
	const char *name;      /* "zoo": `argus bench NAME`, its errors and usage */
	const char *what;      /* "the bug zoo's cases" */
	const char *cases_dir; /* the cases' folder in the sources ("" none built in) */
	const char *bin_dir; /* its programs' folder in the build, or NULL: none (apps installed) */
	const char *runner;  /* bench/zoo/run-case.sh in the sources */
	bool score_live;     /* the exit status asks the live daemon's answer, not the replay's */
};

/* `argus bench NAME [--quick] [--keep] [--no-baselines] [--cases-dir DIR]
 * [--bin-dir DIR] [CASE...]`: an argus exit code (0 argus's top-1 right on
 * every case run). */
int bench_cases_main(const struct bench_corpus *c, int argc, char **argv);

#endif /* ARGUS_BENCH_CASES_H */
