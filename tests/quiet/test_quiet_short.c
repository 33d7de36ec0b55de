/*
 * test_quiet_short.c - the false-alarm benchmark's short form, live:
 * `argus bench quiet --minutes 0.5` drives ordinary use of seven unmodified
 * apps (GTK3, GTK4, Qt5, Tk) side by side under `argus start`, with a ping
 * probe that tells whether anything really hung. Nothing hangs, so argus must
 * send no notification. Labels "live", "gui"; skipped without root or the
 * apps (argus says which), and when the probe saw a real hang (a machine too
 * loaded to judge: a notification would then be right).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "test.h"

static char out[1 << 17];

static long figure(const char *after)
{
	const char *p = strstr(out, after);
	return p ? strtol(p + strlen(after), NULL, 10) : -1;
}

TEST(half_a_minute_of_ordinary_use_draws_no_notification)
{
	const char *bin = getenv("ARGUS_BIN");
	if (!bin || access(bin, X_OK) != 0)
		SKIP("ARGUS_BIN not set (run through ctest)");
	char cmd[1024];
	snprintf(cmd, sizeof(cmd), "timeout -k 5 360 %s bench quiet --minutes 0.5 2>&1", bin);
	FILE *p = popen(cmd, "r");
	ASSERT(p);
	size_t n = fread(out, 1, sizeof(out) - 1, p);
	out[n] = 0;
	int st = pclose(p);
	int rc = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
	fputs(out, stdout);
	if (rc != 0 && (strstr(out, "needs root") || strstr(out, "missing")))
		SKIP("argus bench quiet cannot run here (its output says why)");
	ASSERT_MSG(rc == 0, "argus bench quiet exited %d", rc);
	ASSERT_MSG(figure("apps started: ") == 7, "not every app started");
	long hangs = figure("real hangs ");
	ASSERT_MSG(hangs >= 0, "no probe figures");
	if (hangs > 0)
		SKIP("the ping probe saw %ld real hang(s): too loaded a machine to judge", hangs);
	ASSERT_MSG(figure("pings sent ") > 0, "the probe sent no ping");
	long notes =
	    figure("notifications argus sent (Notify calls on the desktop's session bus): ");
	ASSERT_MSG(notes == 0, "%ld notification(s) with nothing hanging", notes);
	/* the daemon watches the whole machine: a stall of a process outside
	 * this desktop (another job's) is listed as "not a started app" */
	long stalls =
	    figure("stalls argus diagnosed (its JSON stream, any process on the machine): ");
	long others = 0;
	for (const char *p = out; (p = strstr(p, "not a started app: ")); p++)
		others++;
	ASSERT_MSG(stalls - others == 0, "%ld stall(s) of the apps with nothing hanging",
	           stalls - others);
}

TEST_MAIN(TEST_ENTRY(half_a_minute_of_ordinary_use_draws_no_notification))
