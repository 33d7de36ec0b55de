/*
 * zoo-b2-writer.c - the other process of bug zoo case B2: rewrites the
 * bibliography the app watches.
 *
 *   zoo-b2-writer FILE LINES
 *
 * Truncates FILE and writes LINES entries into it, then closes it (the
 * close is what the app's file monitor reports as "changes done").
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	if (argc != 3) {
		fprintf(stderr, "usage: zoo-b2-writer FILE LINES\n");
		return 2;
	}
	long lines = atol(argv[2]);
	FILE *f = fopen(argv[1], "w");
	if (!f) {
		perror(argv[1]);
		return 1;
	}
	for (long i = 0; i < lines; i++)
		fprintf(f, "@article{key%ld, title={Entry %ld}, year={%ld}}\n", i, i,
		        1990 + i % 30);
	if (fclose(f)) {
		perror(argv[1]);
		return 1;
	}
	return 0;
}
