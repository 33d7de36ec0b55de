/*
 * nofp_prog.c - a busy program built the way distributions build theirs
 * (-O2 -fomit-frame-pointer, tests/kext/CMakeLists.txt): main ->
 * nofp_outer -> nofp_middle -> nofp_hot, the hot leaf doing the work, for
 * the seconds given as argv[1] (default 2). Full-stack tests unwind its
 * samples and must find that chain; a frame-pointer walk finds only the ip.
 */
#include <stdint.h>
#include <stdlib.h>
#include <time.h>

volatile uint64_t nofp_sink;

/* Enough locals that the compiler keeps a frame (sub rsp), without rbp. */
__attribute__((noinline)) uint64_t nofp_hot(uint64_t seed)
{
	volatile uint64_t buf[16];
	uint64_t x = seed;

	for (int r = 0; r < 200000; r++) {
		for (int i = 0; i < 16; i++) {
			x = x * 6364136223846793005ull + 1442695040888963407ull;
			buf[i] = x ^ (x >> 17);
		}
		x += buf[x & 15];
	}
	return x;
}

__attribute__((noinline)) uint64_t nofp_middle(uint64_t seed)
{
	volatile uint64_t pad[4] = {seed, seed + 1, seed + 2, seed + 3};
	return nofp_hot(pad[seed & 3]) + pad[1];
}

__attribute__((noinline)) uint64_t nofp_outer(uint64_t seed)
{
	volatile uint64_t pad[6] = {seed};
	uint64_t r = nofp_middle(seed + pad[0]);
	return r ^ pad[0];
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	double secs = argc > 1 ? atof(argv[1]) : 2.0, end = now_s() + secs;
	uint64_t s = 1;

	while (now_s() < end)
		s = nofp_outer(s);
	nofp_sink = s;
	return 0;
}
