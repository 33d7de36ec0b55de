/*
 * spin_flag.c - a yield loop on a data flag no one sets (the shape of zoo
 * B13's UI thread): prints the flag's address on standard output for the
 * test to check `argus flags discover` against afterwards, then spins until
 * the flag is set or 30 s pass. A counter it writes each turn is read too
 * (not a flag: its value changes). With an argument ("work"), each turn
 * first computes for about 100 us, as B13's loop does (a few hundred
 * thousand instructions a turn).
 */
#include <sched.h>
#include <stdio.h>
#include <time.h>

volatile int ready_flag;
volatile unsigned long spins;

/* About 100 us of arithmetic; the result kept so it is not optimized out. */
static unsigned long work_a_turn(void)
{
	unsigned long x = 1;
	for (volatile int i = 0; i < 100000; i++)
		x = x * 2862933555777941757ul + 3037000493ul;
	return x;
}

volatile unsigned long sink;

int main(int argc, char **argv)
{
	int work = argc > 1;
	(void)argv;
	printf("%p\n", (void *)&ready_flag);
	fflush(stdout);
	time_t t0 = time(NULL);
	while (!ready_flag) {
		spins++;
		if (work)
			sink = work_a_turn();
		sched_yield();
		if (time(NULL) - t0 > 30)
			return 1;
	}
	return 0;
}
