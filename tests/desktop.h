/*
 * desktop.h - a private desktop for GUI tests: Xvfb on a free display, a
 * session bus, and the dunst notification daemon, with the environment a
 * GUI app and argus's notifier need (DISPLAY, XDG_RUNTIME_DIR, HOME,
 * DBUS_SESSION_BUS_ADDRESS) set for this process and its children.
 */
#ifndef ARGUS_TEST_DESKTOP_H
#define ARGUS_TEST_DESKTOP_H

#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

struct desktop {
	pid_t xvfb, bus, dunst;
};

static inline bool desktop_have(const char *prog)
{
	char cmd[256];
	snprintf(cmd, sizeof(cmd), "command -v %s >/dev/null 2>&1", prog);
	return system(cmd) == 0;
}

static inline bool desktop_wait_path(const char *path, int ms)
{
	for (int i = 0; i < ms / 10; i++) {
		if (access(path, F_OK) == 0)
			return true;
		usleep(10000);
	}
	return false;
}

/* argv with stdout and stderr to log (NULL = /dev/null). */
static inline pid_t desktop_spawn(char *const argv[], const char *log)
{
	pid_t p = fork();
	if (p == 0) {
		int fd =
		    log ? open(log, O_WRONLY | O_CREAT | O_TRUNC, 0600) : open("/dev/null", O_RDWR);
		dup2(fd, 1);
		dup2(fd, 2);
		execvp(argv[0], argv);
		_exit(127);
	}
	return p;
}

static inline void desktop_kill(pid_t *p)
{
	if (*p > 0) {
		kill(*p, SIGTERM);
		for (int i = 0; i < 500 && waitpid(*p, NULL, WNOHANG) == 0; i++)
			usleep(10000);
		kill(*p, SIGKILL);
		waitpid(*p, NULL, 0);
	}
	*p = -1;
}

static inline void desktop_stop(struct desktop *d)
{
	desktop_kill(&d->dunst);
	desktop_kill(&d->bus);
	desktop_kill(&d->xvfb);
}

/* Start it all under dir (an existing private folder), the X display
 * searched from first_display up. NULL, or the reason to skip the test. */
static inline const char *desktop_start(struct desktop *d, const char *dir, int first_display)
{
	d->xvfb = d->bus = d->dunst = -1;
	if (!desktop_have("Xvfb") || !desktop_have("dbus-daemon") || !desktop_have("dbus-send") ||
	    !desktop_have("dunst") || !desktop_have("dunstctl"))
		return "Xvfb, dbus-daemon, dbus-send, dunst or dunstctl not installed "
		       "(scripts/install-deps.sh)";
	char xdg[160];
	snprintf(xdg, sizeof(xdg), "%s/xdg", dir);
	if (mkdir(xdg, 0700))
		return "cannot create XDG_RUNTIME_DIR";
	setenv("XDG_RUNTIME_DIR", xdg, 1);
	setenv("HOME", dir, 1);
	/* no accessibility bus: its registry would be one more GUI process */
	setenv("NO_AT_BRIDGE", "1", 1);
	int disp = -1;
	for (int n = first_display + (getpid() % 100); n < first_display + 300; n++) {
		char lock[64];
		snprintf(lock, sizeof(lock), "/tmp/.X%d-lock", n);
		if (access(lock, F_OK) != 0) {
			disp = n;
			break;
		}
	}
	if (disp < 0)
		return "no free X display number";
	char dname[16], sock[64];
	snprintf(dname, sizeof(dname), ":%d", disp);
	snprintf(sock, sizeof(sock), "/tmp/.X11-unix/X%d", disp);
	char *xargv[] = {"Xvfb", dname, "-nolisten", "tcp", "-screen", "0", "800x600x24", NULL};
	d->xvfb = desktop_spawn(xargv, NULL);
	if (!desktop_wait_path(sock, 5000))
		return "Xvfb did not start";
	setenv("DISPLAY", dname, 1);
	/* the bus address is set before the bus starts */
	char addr[200], addr_arg[220];
	snprintf(addr, sizeof(addr), "unix:path=%s/bus", xdg);
	snprintf(addr_arg, sizeof(addr_arg), "--address=%s", addr);
	setenv("DBUS_SESSION_BUS_ADDRESS", addr, 1);
	char *bargv[] = {"dbus-daemon", "--session", "--nofork", addr_arg, NULL};
	d->bus = desktop_spawn(bargv, NULL);
	if (!desktop_wait_path(addr + strlen("unix:path="), 5000))
		return "dbus-daemon did not start";
	char log[200];
	snprintf(log, sizeof(log), "%s/dunst.log", dir);
	char *dargv[] = {"dunst", NULL};
	d->dunst = desktop_spawn(dargv, log);
	/* ask the bus, not dunst: a call to a name nobody owns yet would make
	 * the bus start a second dunst of its own (left behind at the end) */
	for (int i = 0; i < 500; i++) {
		if (system("dbus-send --session --print-reply --dest=org.freedesktop.DBus "
		           "/org/freedesktop/DBus org.freedesktop.DBus.NameHasOwner "
		           "string:org.freedesktop.Notifications 2>/dev/null | "
		           "grep -q 'boolean true'") == 0)
			return NULL;
		usleep(10000);
	}
	return "dunst did not come up on the private bus";
}

/* `dunstctl count WHAT` (displayed, history, waiting); -1 on failure. */
static inline int desktop_dunst_count(const char *what)
{
	char cmd[96];
	snprintf(cmd, sizeof(cmd), "dunstctl count %s 2>/dev/null", what);
	FILE *p = popen(cmd, "r");
	int n = -1;
	if (p) {
		if (fscanf(p, "%d", &n) != 1)
			n = -1;
		pclose(p);
	}
	return n;
}

/* The id of argus's fallback notification window on this display (0 =
 * none; xdotool), and its body and title (xprop: _ARGUS_NOTIFICATION_BODY,
 * WM_NAME) when body is not NULL. */
static inline unsigned long desktop_fallback_window(char *body, size_t cap)
{
	FILE *p =
	    popen("xdotool search --onlyvisible --classname argus-notification 2>/dev/null", "r");
	unsigned long w = 0;
	if (p) {
		if (fscanf(p, "%lu", &w) != 1)
			w = 0;
		pclose(p);
	}
	if (w && body) {
		char cmd[128];
		snprintf(cmd, sizeof(cmd),
		         "xprop -id %lu _ARGUS_NOTIFICATION_BODY WM_NAME 2>/dev/null", w);
		body[0] = 0;
		p = popen(cmd, "r");
		if (p) {
			size_t n = fread(body, 1, cap - 1, p);
			body[n] = 0;
			pclose(p);
		}
	}
	return w;
}

/* dunst's count of what ("displayed", "history") once it reaches want, or
 * the last count after ms. */
static inline int desktop_dunst_wait(const char *what, int want, int ms)
{
	int n = desktop_dunst_count(what);
	for (int i = 0; i < ms / 20 && n < want; i++) {
		usleep(20000);
		n = desktop_dunst_count(what);
	}
	return n;
}

/* Waits up to ms for argus's fallback window to go; its id if it stays. */
static inline unsigned long desktop_fallback_gone(int ms)
{
	unsigned long w = desktop_fallback_window(NULL, 0);
	for (int i = 0; i < ms / 20 && w; i++) {
		usleep(20000);
		w = desktop_fallback_window(NULL, 0);
	}
	return w;
}

#endif /* ARGUS_TEST_DESKTOP_H */
