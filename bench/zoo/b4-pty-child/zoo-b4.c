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
#include <signal.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include <glib-unix.h>
#include <gtk/gtk.h>

#define CONNECT_TIMEOUT_MS 4000

static long mono_ms(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1000L + t.tv_nsec / 1000000L;
}

/* Real work, so each step costs a little CPU. */
__attribute__((noinline)) static unsigned work_for_ns(long ns)
{
	struct timespec t0, t;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	volatile unsigned h = 2166136261u;
	do {
		for (int i = 0; i < 10000; i++)
			h = (h ^ (unsigned)i) * 16777619u;
		clock_gettime(CLOCK_MONOTONIC, &t);
	} while ((t.tv_sec - t0.tv_sec) * 1000000000L + (t.tv_nsec - t0.tv_nsec) < ns);
	return h;
}

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
	while (ssh_read_line(cmd, sizeof(cmd))) {
		if (!strcmp(cmd, "ping")) {
			work_for_ns(1000000L);
			put("pong\n");
		} else if (!strcmp(cmd, "reconnect key")) {
			put("Reconnecting\n");
			work_for_ns(20000000L);
			put("Connected\n");
		} else if (!strcmp(cmd, "reconnect password")) {
			/* as ssh does: the prompt, then a read of the terminal */
			put("Reconnecting\nPassword: ");
			if (!ssh_read_line(pw, sizeof(pw)))
				break;
			work_for_ns(5000000L);
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
			long deadline = mono_ms() + CONNECT_TIMEOUT_MS;
			bool up = false;
			while (!up) {
				long left = deadline - mono_ms();
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

static gboolean on_quit(gpointer arg)
{
	(void)arg;
	gtk_main_quit();
	return G_SOURCE_REMOVE;
}

int main(int argc, char **argv)
{
	int exit_after = 60;
	for (int i = 1; i < argc; i++)
		if (!strcmp(argv[i], "--exit-after") && i + 1 < argc)
			exit_after = atoi(argv[i + 1]);
	struct app a = {0};
	pid_t child = forkpty(&a.master, NULL, NULL, NULL);
	if (child < 0) {
		perror("forkpty");
		return 1;
	}
	if (child == 0) {
		prctl(PR_SET_NAME, "zoo-b4-ssh");
		prctl(PR_SET_PDEATHSIG, SIGTERM);
		ssh_serve();
		_exit(0);
	}
	gtk_init(&argc, &argv);
	GtkWidget *win = gtk_window_new(GTK_WINDOW_TOPLEVEL);
	gtk_window_set_title(GTK_WINDOW(win), "zoo-b4");
	gtk_window_set_default_size(GTK_WINDOW(win), 320, 120);
	a.label = gtk_label_new("press f (reconnect) or h (reconnect, password asked: hangs 4 s)");
	gtk_container_add(GTK_CONTAINER(win), a.label);
	g_signal_connect(win, "key-press-event", G_CALLBACK(on_key), &a);
	g_signal_connect(win, "destroy", G_CALLBACK(gtk_main_quit), NULL);
	g_unix_fd_add(a.master, G_IO_IN, on_tunnel_output, &a);
	/* a keep-alive, as a tunnel has */
	g_timeout_add(500, on_ping, &a);
	g_timeout_add_seconds((guint)exit_after, on_quit, NULL);
	g_unix_signal_add(SIGTERM, on_quit, NULL);
	gtk_widget_show_all(win);
	printf("ready\n");
	fflush(stdout);
	gtk_main();
	close(a.master);
	kill(child, SIGTERM);
	while (waitpid(child, NULL, 0) < 0 && errno == EINTR)
		;
	return 0;
}
