/*
 * cli_run.h - run an argus command line as a user types it and keep what
 * it printed: the tests of the command-line tools share this one helper.
 */
#ifndef ARGUS_TEST_CLI_RUN_H
#define ARGUS_TEST_CLI_RUN_H

#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>

#include "test.h"

/* Run the shell command line cmd with its standard output and error sent
 * to dir/out and dir/err; when out is set, *out = stdout then stderr (at
 * most cap - 1 bytes, NUL-ended; the caller frees). Returns the exit
 * status, -1 when it did not exit. */
static inline int cli_run(const char *cmd, const char *dir, char **out, size_t cap)
{
	char full[4096], outp[160], errp[160];
	snprintf(outp, sizeof(outp), "%s/out", dir);
	snprintf(errp, sizeof(errp), "%s/err", dir);
	int n = snprintf(full, sizeof(full), "%s >%s 2>%s", cmd, outp, errp);
	ASSERT_MSG(n >= 0 && (size_t)n < sizeof(full), "command too long: %s", cmd);
	int st = system(full);
	if (out) {
		*out = calloc(1, cap);
		ASSERT(*out);
		size_t k = 0;
		const char *files[] = {outp, errp};
		for (int i = 0; i < 2; i++) {
			FILE *f = fopen(files[i], "r");
			if (f) {
				k += fread(*out + k, 1, cap - 1 - k, f);
				fclose(f);
			}
		}
	}
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

#endif /* ARGUS_TEST_CLI_RUN_H */
