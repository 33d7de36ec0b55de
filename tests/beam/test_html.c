/*
 * test_html.c - the HTML report (`argus diagnose --html`, docs/report.md)
 * in a real browser: headless Chromium (Debian's package) loads every page
 * written, with no console message (the page has no script: any message
 * is a failed load or an error) and no network fetch; its DOM holds a
 * section, a timeline, the stall bar and the root cause per stall; and a
 * screenshot shows the timeline drawn: root-cause orange, the stall's red
 * tint and the running state's green, in pixels.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "test.h"

static char dir[64];
static const char *bin;

static int sh(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
#include <stdarg.h>
static int sh(const char *fmt, ...)
{
	char cmd[4096];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	int st = system(cmd);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static char *slurp(const char *name)
{
	char p[160];
	snprintf(p, sizeof(p), "%s/%s", dir, name);
	FILE *f = fopen(p, "r");
	char *b = calloc(1, 8 << 20);
	size_t n = f && b ? fread(b, 1, (8 << 20) - 1, f) : 0;
	if (b)
		b[n] = 0;
	if (f)
		fclose(f);
	return b;
}

static unsigned count(const char *hay, const char *needle)
{
	unsigned n = 0;
	for (const char *p = hay; (p = strstr(p, needle)); p++)
		n++;
	return n;
}

static void setup(void)
{
	bin = getenv("ARGUS_BIN");
	if (!bin || access(bin, X_OK) != 0)
		SKIP("ARGUS_BIN not set (run through ctest)");
	if (system("command -v chromium >/dev/null && command -v convert >/dev/null") != 0)
		SKIP("chromium or ImageMagick's convert missing: scripts/install-deps.sh");
	snprintf(dir, sizeof(dir), "/tmp/argus-html-XXXXXX");
	ASSERT(mkdtemp(dir));
	ASSERT_EQ(sh("%s synth -o %s/t.argus -n 300k --rate 5000 -s 2 2>/dev/null", bin, dir), 0);
	ASSERT_EQ(sh("%s diagnose --html %s/r.html %s/t.argus > %s/diag.txt", bin, dir, dir, dir), 0);
}

static void teardown(void)
{
	if (sh("rm -rf %s", dir) != 0)
		fprintf(stderr, "could not remove %s\n", dir);
}

#define CHROMIUM                                                                                   \
	"timeout 90 chromium --headless --no-sandbox --disable-gpu --hide-scrollbars "                 \
	"--user-data-dir=%s/profile --virtual-time-budget=3000 "

TEST(page_loads_without_errors_and_draws_every_stall)
{
	setup();
	char *page = slurp("r.html");
	/* self-contained: nothing to fetch */
	ASSERT(!strstr(page, "src=") && !strstr(page, "href=") && !strstr(page, "@import"));
	unsigned stalls = count(page, "<section class=\"stall\"");
	ASSERT(stalls >= 3);
	int rc = sh(CHROMIUM "--enable-logging=stderr --v=0 --dump-dom file://%s/r.html "
	                     "> %s/dom.html 2> %s/chromium.log",
	            dir, dir, dir, dir);
	char *dom = slurp("dom.html"), *log = slurp("chromium.log");
	ASSERT_MSG(rc == 0, "chromium exit %d: %s", rc, log);
	/* what the browser built */
	ASSERT_EQ(count(dom, "<section class=\"stall\""), stalls);
	ASSERT_EQ(count(dom, "<svg class=\"timeline\""), stalls);
	ASSERT_EQ(count(dom, "class=\"stall-bar\""), stalls);
	ASSERT(count(dom, "class=\"seg root\"") >= stalls);
	ASSERT(count(dom, "class=\"edge strong\"") + count(dom, "class=\"edge weak\"") > 0);
	ASSERT(count(dom, "class=\"state running\"") > 0);
	ASSERT(count(dom, "class=\"frame\"") > 0); /* a LongRunning stall's flame graph */
	ASSERT_CONTAINS(dom, "argus diagnose ");
	/* no console message: no script error, no failed load */
	ASSERT_MSG(!strstr(log, ":CONSOLE"), "console: %s", strstr(log, ":CONSOLE"));
	free(page);
	free(dom);
	free(log);
	teardown();
}

/* Pixels of the screenshot near a colour (histogram of ImageMagick). */
static unsigned long pixels_near(const char *hist, int r, int g, int b, int tol)
{
	unsigned long n = 0;
	for (const char *l = hist; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
		unsigned long c;
		int R, G, B;
		if (sscanf(l, " %lu: (%d,%d,%d", &c, &R, &G, &B) == 4 && abs(R - r) <= tol &&
		    abs(G - g) <= tol && abs(B - b) <= tol)
			n += c;
	}
	return n;
}

TEST(screenshot_shows_the_timeline_and_the_root_cause)
{
	setup();
	int rc = sh(CHROMIUM "--window-size=1280,1400 --screenshot=%s/shot.png file://%s/r.html "
	                     "> /dev/null 2>&1",
	            dir, dir, dir);
	ASSERT_EQ(rc, 0);
	ASSERT_EQ(sh("convert %s/shot.png -format %%c histogram:info:- > %s/hist.txt", dir, dir), 0);
	char *hist = slurp("hist.txt");
	unsigned long root = pixels_near(hist, 0xff, 0x8f, 0x00, 6);
	unsigned long stall = pixels_near(hist, 0xf7, 0xd9, 0xd9, 6) + pixels_near(hist, 0xd3, 0x2f,
	                                                                           0x2f, 6);
	unsigned long running = pixels_near(hist, 0x4c, 0xaf, 0x50, 6);
	printf("root-cause pixels %lu, stall %lu, running %lu\n", root, stall, running);
	ASSERT(root > 1000);   /* the first stall's root-cause box */
	ASSERT(stall > 1000);  /* the stall's bar */
	ASSERT(running > 200); /* scheduling states under the lanes */
	free(hist);
	teardown();
}

TEST_MAIN(TEST_ENTRY(page_loads_without_errors_and_draws_every_stall),
          TEST_ENTRY(screenshot_shows_the_timeline_and_the_root_cause))
