/*
 * zoo-b4.c - bug zoo case B4: the UI's event loop mishandles input from a
 * child on a pty and deadlocks with it until a timeout.
 *
 * The GTK3 UI runs zoo-b4-ssh, a stand-in for an ssh tunnel, as a real child
 * on a pseudo-terminal (forkpty) and installs on_tunnel_output() as the
 * master's callback in its main loop. A reconnect ('f', 'h') writes
 * "reconnect" to the child, which answers "Reconnecting", then "Connected".
 * The callback, on "Reconnecting", waits right there (poll on the master,
 * 4 s timeout) for "Connected". With key authentication ('f') it comes
 * ~20 ms later. When the server asks for a password ('h'), the child writes
 * "Reconnecting\nPassword: " at once and blocks reading the password: the
 * prompt is already in the callback's buffer, but the callback only looks at
 * it after its wait, so the UI waits on the child that waits on the UI until
 * the callback gives up after 4 s. The root cause is the callback.
 * Exits after --exit-after SECONDS (default 60) or on SIGTERM; the child
 * exits when the pty closes.
 */
#include <errno.h>
#include <poll.h>
#include <pty.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <termios.h>
#include <unistd.h>

#include <glib-unix.h>

#include "zoo.h"

#define CONNECT_TIMEOUT_MS 4000

/* ---- the child on the pty: zoo-b4-ssh ---- */

static bool put(const char *s)
{
	size_t n = strlen(s);
	return write(STDOUT_FILENO, s, n) == (ssize_t)n;
}

/* One line from the terminal (raw mode: byte by byte up to '\n'). */
__attribute__((noinline)) static bool ssh_read_line(char *buf, size_t cap)
{
	size_t n = 0;
	for (;;) {
		char ch;
		ssize_t r = read(STDIN_FILENO, &ch, 1);
		if (r < 0 && errno == EINTR)
			continue;
		if (r != 1)
			return false;
		if (ch == '\n')
			break;
		if (n + 1 < cap)
			buf[n++] = ch;
	}
	buf[n] = '\0';
	return true;
}

__attribute__((noinline)) static void ssh_serve(void)
{
	struct termios t;
	if (!tcgetattr(STDIN_FILENO, &t)) {
		cfmakeraw(&t);
		tcsetattr(STDIN_FILENO, TCSANOW, &t);
	}
	char cmd[64], pw[64];
	/* real work, so each step costs a little CPU */
	while (ssh_read_line(cmd, sizeof(cmd))) {
		if (!strcmp(cmd, "ping")) {
			zoo_work_for_ns(1000000L);
			put("pong\n");
		} else if (!strcmp(cmd, "reconnect key")) {
			put("Reconnecting\n");
			zoo_work_for_ns(20000000L);
			put("Connected\n");
		} else if (!strcmp(cmd, "reconnect password")) {
			/* as ssh does: the prompt, then a read of the terminal */
			put("Reconnecting\nPassword: ");
			if (!ssh_read_line(pw, sizeof(pw)))
				break;
			zoo_work_for_ns(5000000L);
			put("Connected\n");
		}
	}
}

/* ---- the UI ---- */

struct app {
	int master;
	GtkWidget *label;
	char buf[512];
	size_t len;
	unsigned reconnects, timeouts;
};

static void status(struct app *a, const char *what)
{
	char text[128];
	snprintf(text, sizeof(text), "%s (%u reconnects, %u timed out)", what, a->reconnects,
	         a->timeouts);
	gtk_label_set_text(GTK_LABEL(a->label), text);
	printf("%s\n", what);
	fflush(stdout);
}

/* Moves the first complete line of a->buf into line; false when none. */
static bool take_line(struct app *a, char *line, size_t cap)
{
	char *nl = memchr(a->buf, '\n', a->len);
	if (!nl)
		return false;
	size_t n = (size_t)(nl - a->buf);
	snprintf(line, cap, "%.*s", (int)n, a->buf);
	a->len -= n + 1;
	memmove(a->buf, nl + 1, a->len);
	return true;
}

static bool read_more(struct app *a, int fd)
{
	ssize_t n = read(fd, a->buf + a->len, sizeof(a->buf) - 1 - a->len);
	if (n <= 0)
		return false;
	a->len += (size_t)n;
	a->buf[a->len] = '\0';
	return true;
}

/* The master's callback in the UI's main loop. */
__attribute__((noinline)) static gboolean on_tunnel_output(gint fd, GIOCondition cond, gpointer arg)
{
	(void)cond;
	struct app *a = arg;
	if (!read_more(a, fd))
		return G_SOURCE_REMOVE;
	char line[128];
	while (take_line(a, line, sizeof(line))) {
		if (!strcmp(line, "pong")) {
			status(a, "tunnel alive");
		} else if (!strcmp(line, "Connected")) {
			a->reconnects++;
			status(a, "connected");
		} else if (!strcmp(line, "Reconnecting")) {
			/* The tunnel is back when ssh says "Connected": wait for it
			 * here. The defect: whatever else ssh says meanwhile - a
			 * password prompt, maybe already in a->buf - is looked at
			 * only after this wait. */
			long deadline = zoo_now_ms() + CONNECT_TIMEOUT_MS;
			bool up = false;
			while (!up) {
				long left = deadline - zoo_now_ms();
				if (left <= 0)
					break;
				struct pollfd p = {.fd = fd, .events = POLLIN};
				int n = poll(&p, 1, (int)left);
				if (n < 0 && errno == EINTR)
					continue;
				if (n <= 0 || !read_more(a, fd))
					break;
				up = strstr(a->buf, "Connected\n") != NULL;
			}
			if (!up) {
				a->timeouts++;
				status(a, "reconnect timed out");
			}
		}
	}
	/* ssh's prompt: a partial line */
	static const char prompt[] = "Password: ";
	size_t pl = sizeof(prompt) - 1;
	if (a->len >= pl && !memcmp(a->buf + a->len - pl, prompt, pl)) {
		a->len = 0;
		if (write(fd, "secret\n", 7) != 7)
			perror("write");
	}
	return G_SOURCE_CONTINUE;
}

static gboolean on_key(GtkWidget *w, GdkEventKey *e, gpointer arg)
{
	(void)w;
	struct app *a = arg;
	const char *cmd = e->keyval == GDK_KEY_h ? "reconnect password\n" : "reconnect key\n";
	if (write(a->master, cmd, strlen(cmd)) != (ssize_t)strlen(cmd))
		perror("write");
	return TRUE;
}

static gboolean on_ping(gpointer arg)
{
	struct app *a = arg;
	if (write(a->master, "ping\n", 5) != 5)
		perror("write");
	return G_SOURCE_CONTINUE;
}

int main(int argc, char **argv)
{
	int exit_after = zoo_args(argc, argv);
	struct app a = {0};
	pid_t child = forkpty(&a.master, NULL, NULL, NULL);
	if (child < 0) {
		perror("forkpty");
		return 1;
	}
	if (child == 0) {
		zoo_child_init("zoo-b4-ssh");
		ssh_serve();
		_exit(0);
	}
	gtk_init(&argc, &argv);
	GtkWidget *win =
	    zoo_window("zoo-b4", "press f (reconnect) or h (reconnect, password asked: hangs 4 s)",
	               on_key, &a);
	a.label = gtk_bin_get_child(GTK_BIN(win));
	g_unix_fd_add(a.master, G_IO_IN, on_tunnel_output, &a);
	/* a keep-alive, as a tunnel has */
	g_timeout_add(500, on_ping, &a);
	zoo_ready(win, NULL);
	zoo_run(exit_after);
	close(a.master);
	zoo_reap(child);
	return 0;
}
