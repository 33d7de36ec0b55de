/*
 * spin_flag.c - a yield loop on a data flag no one sets (the shape of zoo
 * B13's UI thread): prints the flag's address on standard output for the
 * test to check `argus flags discover` against afterwards, then spins until
 * the flag is set or 30 s pass. A counter it writes each turn is read too
 * (not a flag: its value changes).
 */
#include <sched.h>
#include <stdio.h>
#include <time.h>

volatile int ready_flag;
volatile unsigned long spins;

int main(void)
{
	printf("%p\n", (void *)&ready_flag);
	fflush(stdout);
	time_t t0 = time(NULL);
	while (!ready_flag) {
		spins++;
		sched_yield();
		if (time(NULL) - t0 > 30)
			return 1;
	}
	return 0;
}
