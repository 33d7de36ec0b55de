/*
 * bench.h - the benchmarks `argus bench` runs. Each prints its figures (and
 * the command that reproduces them) and returns an argus exit code; none
 * asserts a speed: targets are read off the figures (DESIGN.md "Numbers").
 */
#ifndef ARGUS_BENCH_H
#define ARGUS_BENCH_H

/* Write and read a synthetic trace: events/s each way, bytes/event on disk. */
int argus_bench_io(int argc, char **argv);
/* Merge alone and merge + JSON encoding, one core (stream/). */
int argus_bench_stream(int argc, char **argv);
/* Ingest into the graph window: events/s, bytes per event held. */
int argus_bench_ingest(int argc, char **argv);
/* Tracing overhead on a command: untraced vs argus record vs perf record (kext/). */
int argus_bench_overhead(int argc, char **argv);
/* In-process hooks: ns per hooked call, GTK3 workload hooks on vs off. */
int argus_bench_hooks(int argc, char **argv);
/* Its --landmarks part (bench_landmarks.c): the toolkit landmark hooks per
 * event in the GTK3 and Qt5 programs of bin_dir, off / on / all recorded. */
int argus_bench_hooks_landmarks(const char *lib, int rounds, int scale, const char *bin_dir);
/* Stall detection to finished report over 1 M / 5 M / 20 M event windows;
 * beam search alone on a graph of 1.68 M vertices (beam/). */
int argus_bench_diagnose(int argc, char **argv);
/* The bug zoo live: argus against the baselines per case (Table 4), the
 * seconds from a stall's start to its notification (bench/zoo/). */
int argus_bench_zoo(int argc, char **argv);
/* Unmodified Debian apps hanging for real reasons, live, scored on the live
 * daemon's answer: process, thread, function; false stalls (bench/realapps/). */
int argus_bench_realapps(int argc, char **argv);
/* False alarms: ordinary use of unmodified apps, nothing hanging, under the
 * live daemon; its notifications beside a _NET_WM_PING probe (bench/quiet/). */
int argus_bench_quiet(int argc, char **argv);

/* The daemon (argus start) under a storm: offered / recorded / lost per
 * stage, adding up; peak RSS against the bounds. */
int argus_bench_storm(int argc, char **argv);

#endif /* ARGUS_BENCH_H */
