/*
 * test_notify.c - the desktop notification reaches a real notification
 * daemon: a private Xvfb, a private session bus (dbus-daemon) and dunst;
 * dunst's history (dunstctl) must hold "pinwheel root cause found" with the
 * body argus sent. Label "gui"; skipped when a piece is missing.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "beam.h"
#include "desktop.h"
#include "test.h"

static char dir[64];
static struct desktop desk = {-1, -1, -1};

static void teardown(void)
{
	desktop_stop(&desk);
	if (dir[0]) {
		char cmd[128];
		snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
		if (system(cmd) != 0)
			fprintf(stderr, "could not remove %s\n", dir);
	}
}

/* The private desktop (tests/desktop.h); NULL or a reason to skip. */
static const char *setup(void)
{
	snprintf(dir, sizeof(dir), "/tmp/argus-notify-XXXXXX");
	if (!mkdtemp(dir))
		return "mkdtemp failed";
	chmod(dir, 0700);
	return desktop_start(&desk, dir, 90);
}

/* dunst's history (JSON) as a string; caller frees. */
static char *history(void)
{
	FILE *p = popen("dunstctl history 2>/dev/null", "r");
	if (!p)
		return NULL;
	size_t cap = 1 << 16, n = 0;
	char *buf = calloc(1, cap);
	while (buf && n + 1 < cap) {
		size_t k = fread(buf + n, 1, cap - 1 - n, p);
		if (!k)
			break;
		n += k;
	}
	pclose(p);
	return buf;
}

/* dunst moves a notification to its history once closed. */
static char *history_after_close(void)
{
	for (int i = 0; i < 100; i++) {
		if (system("dunstctl close-all >/dev/null 2>&1") != 0)
			break;
		char *h = history();
		if (h && strstr(h, "pinwheel root cause found"))
			return h;
		free(h);
		usleep(20000);
	}
	return history();
}

/* `argus start --notifier` on this desktop's bus, reading pipefd[0]
 * (closed here); opener runs for the action when not NULL. */
static pid_t notifier_start(const char *bin, int pipefd[2], const char *opener)
{
	pid_t pid = fork();
	if (pid == 0) {
		dup2(pipefd[0], 0);
		close(pipefd[0]);
		close(pipefd[1]);
		int null = open("/dev/null", O_WRONLY);
		dup2(null, 1);
		char log[96];
		snprintf(log, sizeof(log), "%s/notifier.log", dir);
		int lfd = open(log, O_WRONLY | O_CREAT | O_APPEND, 0600);
		if (lfd >= 0)
			dup2(lfd, 2);
		if (opener)
			setenv("ARGUS_OPEN", opener, 1);
		execl(bin, "argus", "start", "--notifier", getenv("DBUS_SESSION_BUS_ADDRESS"),
		      (char *)NULL);
		_exit(127);
	}
	close(pipefd[0]);
	return pid;
}

/* The notifier's log (its stderr); caller frees. */
static char *notifier_log(void)
{
	char path[96];
	snprintf(path, sizeof(path), "%s/notifier.log", dir);
	char *buf = calloc(1, 1 << 16);
	FILE *f = fopen(path, "r");
	if (f && buf) {
		size_t n = fread(buf, 1, (1 << 16) - 1, f);
		buf[n] = 0;
	}
	if (f)
		fclose(f);
	return buf;
}

static uint64_t mono_ms(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000 + (uint64_t)t.tv_nsec / 1000000;
}

/* Whether the notifier ended within 5 s (its status in *st); killed if not. */
static bool notifier_ended(pid_t *pid, int *st)
{
	bool ended = false;
	for (int i = 0; i < 500 && !ended; i++) {
		ended = waitpid(*pid, st, WNOHANG) == *pid;
		if (!ended)
			usleep(10000);
	}
	if (!ended)
		desktop_kill(pid);
	return ended;
}

/* An opener (the default action's command) that writes the page it was
 * given to dir/opened: its path in opener, that file's in opened. */
static void write_opener(char opener[128], char opened[128])
{
	snprintf(opener, 128, "%s/open.sh", dir);
	snprintf(opened, 128, "%s/opened", dir);
	FILE *f = fopen(opener, "w");
	ASSERT(f);
	/* written whole, then named: the test waits for the name, then reads */
	fprintf(f, "#!/bin/sh\necho \"$1\" > %s.part && mv %s.part %s\n", opened, opened, opened);
	fclose(f);
	ASSERT_EQ(chmod(opener, 0700), 0);
}

TEST(notification_reaches_dunst)
{
	const char *why = setup();
	if (why) {
		teardown();
		SKIP("%s", why);
	}
	char err[256] = "";
	int rc = argus_notify("gedit stalled 2.9 s: udisksd 716/716 blocked in "
	                      "udisks_state_flush_to_disk (fsync)",
	                      "/tmp/report.json", err, sizeof(err));
	char *h = rc == 0 ? history_after_close() : NULL;
	teardown();
	ASSERT_MSG(rc == 0, "argus_notify: %s", err);
	ASSERT(h);
	ASSERT_CONTAINS(h, "pinwheel root cause found");
	ASSERT_CONTAINS(h, "gedit stalled 2.9 s: udisksd 716/716 blocked in");
	free(h);
}

TEST(diagnose_notify_sends_one_per_stall)
{
	const char *bin = getenv("ARGUS_BIN");
	if (!bin || access(bin, X_OK) != 0)
		SKIP("ARGUS_BIN not set (run through ctest)");
	const char *why = setup();
	if (why) {
		teardown();
		SKIP("%s", why);
	}
	char trace[128], cmd[512];
	snprintf(trace, sizeof(trace), "%s/t.argus", dir);
	snprintf(cmd, sizeof(cmd),
	         "%s synth -o %s -n 400k --rate 5000 -s 1 2>/dev/null && "
	         "%s diagnose --notify %s >/dev/null",
	         bin, trace, bin, trace);
	int rc = system(cmd);
	char *h = rc == 0 ? history_after_close() : NULL;
	teardown();
	ASSERT_EQ(rc, 0);
	ASSERT(h);
	ASSERT_CONTAINS(h, "pinwheel root cause found");
	ASSERT_CONTAINS(h, "nautilus stalled");
	ASSERT_CONTAINS(h, "udisks_state_flush_to_disk");
	free(h);
}

/* One notifier serves every notification of a session (the daemon starts
 * one per bus: `argus start --notifier BUS`, notifications on its standard
 * input, one a line): three notifications from one process; the default
 * action ("Open report") taken in dunst on one of them opens that one's
 * report while the others still wait; with its input closed and the rest
 * closed, the notifier ends by itself. */
TEST(one_notifier_serves_every_notification_and_opens_the_report)
{
	const char *bin = getenv("ARGUS_BIN");
	if (!bin || access(bin, X_OK) != 0)
		SKIP("ARGUS_BIN not set (run through ctest)");
	const char *why = setup();
	if (why) {
		teardown();
		SKIP("%s", why);
	}
	char opener[128], opened[128];
	write_opener(opener, opened);
	/* the pages are there (the daemon writes them right after notifying) */
	for (int i = 1; i <= 3; i++) {
		char page[128];
		snprintf(page, sizeof(page), "%s/r%d.html", dir, i);
		FILE *pf = fopen(page, "w");
		ASSERT(pf);
		fclose(pf);
	}
	int pipefd[2];
	ASSERT_EQ(pipe(pipefd), 0);
	pid_t notifier = notifier_start(bin, pipefd, opener);
	char line[512];
	for (int i = 1; i <= 3; i++) {
		snprintf(line, sizeof(line), "app%d stalled 2.%d s: helper blocked%c%s/r%d.html\n",
		         i, i, ARGUS_NOTIFY_SEP, dir, i);
		ASSERT_EQ(write(pipefd[1], line, strlen(line)), (ssize_t)strlen(line));
	}
	bool shown = desktop_dunst_wait("displayed", 3, 5000) >= 3;
	int acted = shown ? system("dunstctl action 0 >/dev/null 2>&1") : -1;
	bool ok = desktop_wait_path(opened, 5000);
	char buf[256] = "";
	if (ok) {
		FILE *o = fopen(opened, "r");
		if (o) {
			if (!fgets(buf, sizeof(buf), o))
				buf[0] = 0;
			fclose(o);
		}
	}
	/* still there for the other two */
	bool alive = waitpid(notifier, NULL, WNOHANG) == 0;
	/* no more input, the rest closed: it ends */
	close(pipefd[1]);
	int closed = system("dunstctl close-all >/dev/null 2>&1");
	int st = -1;
	bool ended = notifier_ended(&notifier, &st);
	teardown();
	ASSERT_MSG(shown, "three notifications were never displayed");
	ASSERT_EQ(acted, 0);
	ASSERT_MSG(ok, "the report was not opened after the action");
	ASSERT_CONTAINS(buf, "/r");
	ASSERT_CONTAINS(buf, ".html");
	ASSERT_MSG(alive, "the notifier left while two notifications were pending");
	ASSERT_EQ(closed, 0);
	ASSERT_MSG(ended, "the notifier did not end with its input closed and nothing pending");
	ASSERT_MSG(WIFEXITED(st) && WEXITSTATUS(st) == 0, "notifier exit status %d", st);
}

/* A stall's final diagnosis comes as a second line with the stall's key:
 * the notification on screen is replaced (one hang, one notification); a
 * line of another stall is a notification of its own. */
TEST(a_line_with_a_stalls_key_replaces_its_notification)
{
	const char *bin = getenv("ARGUS_BIN");
	if (!bin || access(bin, X_OK) != 0)
		SKIP("ARGUS_BIN not set (run through ctest)");
	const char *why = setup();
	if (why) {
		teardown();
		SKIP("%s", why);
	}
	int pipefd[2];
	ASSERT_EQ(pipe(pipefd), 0);
	pid_t notifier = notifier_start(bin, pipefd, NULL);
	static const char *const lines[] = {
	    "app stalled 2.0 s: app busy in first_guess",
	    "7",
	    "app stalled 2.0 s: app busy in whole_stall (ended after 9.0 s)",
	    "7",
	    "other stalled 2.1 s: helper blocked",
	    "8"};
	int displayed[3] = {-1, -1, -1};
	char line[512];
	for (int i = 0; i < 3; i++) {
		snprintf(line, sizeof(line), "%s%c%s/r.html%c%s\n", lines[2 * i], ARGUS_NOTIFY_SEP,
		         dir, ARGUS_NOTIFY_SEP, lines[2 * i + 1]);
		ASSERT_EQ(write(pipefd[1], line, strlen(line)), (ssize_t)strlen(line));
		/* the count it should reach, and no more once there */
		int want = i < 2 ? 1 : 2;
		for (int k = 0; k < 250; k++) {
			displayed[i] = desktop_dunst_count("displayed");
			if (displayed[i] >= want)
				break;
			usleep(20000);
		}
		usleep(300000); /* a second notification would be shown by now */
		displayed[i] = desktop_dunst_count("displayed");
	}
	/* a bus that answers: no window of argus's own, ever */
	unsigned long w = desktop_fallback_window(NULL, 0);
	char *h = history_after_close();
	close(pipefd[1]);
	int st = -1;
	bool ended = notifier_ended(&notifier, &st);
	char *log = notifier_log();
	teardown();
	ASSERT_MSG(!w && log && !strstr(log, "window"), "a fallback window with a healthy bus: %s",
	           log ? log : "");
	free(log);
	ASSERT(h);
	bool first_gone = !strstr(h, "first_guess"), final_there = strstr(h, "whole_stall") != NULL,
	     other_there = strstr(h, "helper blocked") != NULL;
	free(h);
	ASSERT_EQ(displayed[0], 1);
	ASSERT_MSG(displayed[1] == 1, "the final line of stall 7 made %d notifications, not 1",
	           displayed[1]);
	ASSERT_EQ(displayed[2], 2);
	ASSERT_MSG(first_gone, "the replaced notification is still in dunst's history");
	ASSERT(final_there);
	ASSERT(other_there);
	ASSERT_MSG(ended, "the notifier did not end with its input closed");
}

/* The daemon notifies before it writes the page (docs/daemon.md): a click
 * that comes first opens the page once it is there, not before. */
TEST(a_click_before_the_page_is_written_opens_it_once_there)
{
	const char *bin = getenv("ARGUS_BIN");
	if (!bin || access(bin, X_OK) != 0)
		SKIP("ARGUS_BIN not set (run through ctest)");
	const char *why = setup();
	if (why) {
		teardown();
		SKIP("%s", why);
	}
	char opener[128], opened[128], page[128];
	write_opener(opener, opened);
	snprintf(page, sizeof(page), "%s/late.html", dir);
	int pipefd[2];
	ASSERT_EQ(pipe(pipefd), 0);
	pid_t notifier = notifier_start(bin, pipefd, opener);
	char line[512];
	snprintf(line, sizeof(line), "app stalled 2.0 s: helper blocked%c%s\n", ARGUS_NOTIFY_SEP,
	         page);
	ASSERT_EQ(write(pipefd[1], line, strlen(line)), (ssize_t)strlen(line));
	bool shown = desktop_dunst_wait("displayed", 1, 5000) >= 1;
	int acted = shown ? system("dunstctl action 0 >/dev/null 2>&1") : -1;
	/* the page is not there: nothing opened yet */
	bool early = desktop_wait_path(opened, 700);
	FILE *f = fopen(page, "w");
	if (f)
		fclose(f);
	bool later = desktop_wait_path(opened, 5000);
	close(pipefd[1]);
	int closed = system("dunstctl close-all >/dev/null 2>&1");
	int st = -1;
	bool ended = notifier_ended(&notifier, &st);
	teardown();
	ASSERT_MSG(shown, "the notification was never displayed");
	ASSERT_EQ(acted, 0);
	ASSERT_MSG(!early, "the page was opened before it was written");
	ASSERT_MSG(later, "the page was not opened once written");
	ASSERT_EQ(closed, 0);
	ASSERT_MSG(ended, "the notifier did not end with its input closed");
}


/* The session bus stopped (SIGSTOP, as a hung bus daemon) before the
 * notifier connects: the notification cannot reach dunst, so the notifier
 * shows it as an X window of its own, with the summary and the body, 0.5 s
 * after the line came; once the bus runs again the desktop's notification
 * is shown and the window goes (one notification on screen). */
TEST(a_stopped_bus_shows_the_notification_as_a_window)
{
	const char *bin = getenv("ARGUS_BIN");
	if (!bin || access(bin, X_OK) != 0)
		SKIP("ARGUS_BIN not set (run through ctest)");
	if (!desktop_have("xdotool") || !desktop_have("xprop"))
		SKIP("xdotool or xprop not installed (scripts/install-deps.sh)");
	const char *why = setup();
	if (why) {
		teardown();
		SKIP("%s", why);
	}
	ASSERT_EQ(kill(desk.bus, SIGSTOP), 0);
	int pipefd[2];
	ASSERT_EQ(pipe(pipefd), 0);
	pid_t notifier = notifier_start(bin, pipefd, NULL);
	char line[512];
	snprintf(line, sizeof(line),
	         "app stalled 2.0 s: dbus-daemon 7/7 stopped%c%s/r.html%c9%c%s%c\n",
	         ARGUS_NOTIFY_SEP, dir, ARGUS_NOTIFY_SEP, ARGUS_NOTIFY_SEP, getenv("DISPLAY"),
	         ARGUS_NOTIFY_SEP);
	uint64_t t0 = mono_ms();
	ASSERT_EQ(write(pipefd[1], line, strlen(line)), (ssize_t)strlen(line));
	unsigned long w = 0;
	uint64_t shown = 0;
	char body[1024] = "";
	while (!w && mono_ms() - t0 < 3000) {
		w = desktop_fallback_window(body, sizeof(body));
		if (w)
			shown = mono_ms() - t0;
		else
			usleep(20000);
	}
	/* the bus runs again: dunst shows the notification, the window goes */
	kill(desk.bus, SIGCONT);
	int displayed = desktop_dunst_wait("displayed", 1, 5000);
	unsigned long after = desktop_fallback_gone(2000);
	close(pipefd[1]);
	if (system("dunstctl close-all >/dev/null 2>&1") != 0)
		fprintf(stderr, "dunstctl close-all failed\n");
	int st = -1;
	bool ended = notifier_ended(&notifier, &st);
	char *log = notifier_log();
	teardown();
	printf("fallback window %lu shown %llu ms after the line\n", w, (unsigned long long)shown);
	ASSERT_MSG(w, "no fallback window within 3 s; notifier log: %s", log);
	ASSERT_MSG(shown <= 1500, "the window came %llu ms after the line",
	           (unsigned long long)shown);
	ASSERT_CONTAINS(body, "pinwheel root cause found");
	ASSERT_CONTAINS(body, "app stalled 2.0 s: dbus-daemon 7/7 stopped");
	ASSERT_CONTAINS(body, "/r.html");
	ASSERT_MSG(displayed == 1, "dunst displayed %d notifications once the bus ran", displayed);
	ASSERT_MSG(!after, "the fallback window stayed beside the desktop's notification");
	ASSERT(ended);
	free(log);
}

TEST_MAIN(TEST_ENTRY(notification_reaches_dunst), TEST_ENTRY(diagnose_notify_sends_one_per_stall),
          TEST_ENTRY(one_notifier_serves_every_notification_and_opens_the_report),
          TEST_ENTRY(a_line_with_a_stalls_key_replaces_its_notification),
          TEST_ENTRY(a_click_before_the_page_is_written_opens_it_once_there),
          TEST_ENTRY(a_stopped_bus_shows_the_notification_as_a_window))
