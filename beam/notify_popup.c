/*
 * notify_popup.c - the notification as a small X11 window of argus's own
 * (libxcb), for when the desktop notification cannot be shown in time: the
 * session bus or the notification server stopped or hung (docs/daemon.md).
 * An override-redirect window at the top right corner of the app's screen,
 * white text on black in a white border: the summary, then the body. It
 * carries WM_NAME / _NET_WM_NAME (the summary), WM_CLASS
 * "argus-notification", "argus", the window type of a notification, and
 * the body in _ARGUS_NOTIFICATION_BODY (UTF8_STRING), for tools that look
 * for it. A click on it closes it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "notify_priv.h"

#ifdef ARGUS_HAVE_XCB
#include <xcb/xcb.h>

enum {
	POPUP_WIDTH = 460, /* px */
	POPUP_MARGIN = 12, /* from the screen's edges */
	POPUP_PAD = 10,    /* text from the window's edges */
	POPUP_LINE = 15,   /* the "fixed" font's 13 px and a little air */
	POPUP_COLS = 72,   /* characters a line: (460 - 2 * 10) / 6 px */
	POPUP_MAX_LINES = 24,
};

struct argus_popup {
	xcb_connection_t *c;
	xcb_window_t win;
	xcb_gcontext_t gc;
	unsigned nlines;
	char lines[POPUP_MAX_LINES][POPUP_COLS + 1];
};

/* summary, then text's lines, wrapped at POPUP_COLS (at a space when one
 * is near), at most POPUP_MAX_LINES. The core font draws ISO 8859-1: a
 * byte outside ASCII shows as '?' (a UTF-8 sequence as one '?'). */
static void lay_out(struct argus_popup *p, const char *summary, const char *text)
{
	char src[4096], buf[4096];
	snprintf(src, sizeof(src), "%s\n%s", summary, text);
	size_t k = 0;
	for (const unsigned char *c = (const unsigned char *)src; *c; c++) {
		if (*c == '\n')
			buf[k++] = '\n';
		else if (*c < 0x80)
			buf[k++] = *c < 0x20 ? ' ' : (char)*c;
		else if (*c >= 0xc0)
			buf[k++] = '?';
	}
	buf[k] = 0;
	const char *s = buf;
	while (*s && p->nlines < POPUP_MAX_LINES) {
		size_t n = strcspn(s, "\n"), cut = n;
		if (n > POPUP_COLS) {
			cut = POPUP_COLS;
			for (size_t i = POPUP_COLS; i > POPUP_COLS / 2; i--)
				if (s[i] == ' ') {
					cut = i;
					break;
				}
		}
		memcpy(p->lines[p->nlines], s, cut);
		p->lines[p->nlines++][cut] = 0;
		s += cut;
		if (cut < n)
			while (*s == ' ')
				s++;
		else if (*s == '\n')
			s++;
	}
}

static xcb_atom_t atom(xcb_connection_t *c, const char *name)
{
	xcb_intern_atom_reply_t *r =
	    xcb_intern_atom_reply(c, xcb_intern_atom(c, 0, (uint16_t)strlen(name), name), NULL);
	xcb_atom_t a = r ? r->atom : XCB_ATOM_NONE;
	free(r);
	return a;
}

static void draw(struct argus_popup *p)
{
	for (unsigned i = 0; i < p->nlines; i++) {
		size_t n = strlen(p->lines[i]);
		if (n)
			xcb_image_text_8(
			    p->c, (uint8_t)n, p->win, p->gc, POPUP_PAD,
			    (int16_t)(POPUP_PAD + 11 + (int)i * POPUP_LINE + (i ? 4 : 0)),
			    p->lines[i]);
	}
	xcb_flush(p->c);
}

struct argus_popup *argus_popup_open(const char *display, const char *xauth, const char *summary,
                                     const char *text, char *err, size_t ecap)
{
	if (xauth && *xauth)
		setenv("XAUTHORITY", xauth, 1); /* xcb_connect reads it */
	int screen_no = 0;
	xcb_connection_t *c = xcb_connect(display && *display ? display : NULL, &screen_no);
	if (xcb_connection_has_error(c)) {
		snprintf(err, ecap, "cannot connect to X display %s",
		         display && *display ? display : "(DISPLAY)");
		xcb_disconnect(c);
		return NULL;
	}
	const xcb_setup_t *setup = xcb_get_setup(c);
	xcb_screen_iterator_t it = xcb_setup_roots_iterator(setup);
	for (int i = 0; i < screen_no && it.rem; i++)
		xcb_screen_next(&it);
	xcb_screen_t *scr = it.data;
	struct argus_popup *p = calloc(1, sizeof(*p));
	if (!p || !scr) {
		snprintf(err, ecap, "%s", p ? "the X display has no screen" : "out of memory");
		free(p);
		xcb_disconnect(c);
		return NULL;
	}
	p->c = c;
	lay_out(p, summary, text);
	uint16_t h = (uint16_t)(2 * POPUP_PAD + (int)p->nlines * POPUP_LINE + 4);
	int x = (int)scr->width_in_pixels - POPUP_WIDTH - POPUP_MARGIN - 4;
	p->win = xcb_generate_id(c);
	uint32_t wv[] = {scr->black_pixel, scr->white_pixel, 1,
	                 XCB_EVENT_MASK_EXPOSURE | XCB_EVENT_MASK_BUTTON_PRESS};
	xcb_create_window(
	    c, XCB_COPY_FROM_PARENT, p->win, scr->root, (int16_t)(x < 0 ? 0 : x), POPUP_MARGIN,
	    POPUP_WIDTH, h, 2, XCB_WINDOW_CLASS_INPUT_OUTPUT, scr->root_visual,
	    XCB_CW_BACK_PIXEL | XCB_CW_BORDER_PIXEL | XCB_CW_OVERRIDE_REDIRECT | XCB_CW_EVENT_MASK,
	    wv);
	/* the core font every X server has built in */
	xcb_font_t font = xcb_generate_id(c);
	xcb_open_font(c, font, 5, "fixed");
	p->gc = xcb_generate_id(c);
	uint32_t gv[] = {scr->white_pixel, scr->black_pixel, font};
	xcb_create_gc(c, p->gc, p->win, XCB_GC_FOREGROUND | XCB_GC_BACKGROUND | XCB_GC_FONT, gv);
	xcb_close_font(c, font);
	size_t sn = strlen(summary), tn = strlen(text);
	xcb_atom_t utf8 = atom(c, "UTF8_STRING"), net_name = atom(c, "_NET_WM_NAME"),
	           body = atom(c, "_ARGUS_NOTIFICATION_BODY"),
	           type = atom(c, "_NET_WM_WINDOW_TYPE"),
	           type_n = atom(c, "_NET_WM_WINDOW_TYPE_NOTIFICATION");
	xcb_change_property(c, XCB_PROP_MODE_REPLACE, p->win, XCB_ATOM_WM_NAME, XCB_ATOM_STRING, 8,
	                    (uint32_t)sn, summary);
	static const char wm_class[] = ARGUS_POPUP_INSTANCE "\0" ARGUS_POPUP_CLASS;
	xcb_change_property(c, XCB_PROP_MODE_REPLACE, p->win, XCB_ATOM_WM_CLASS, XCB_ATOM_STRING, 8,
	                    sizeof(wm_class), wm_class);
	if (utf8 && net_name)
		xcb_change_property(c, XCB_PROP_MODE_REPLACE, p->win, net_name, utf8, 8,
		                    (uint32_t)sn, summary);
	if (utf8 && body)
		xcb_change_property(c, XCB_PROP_MODE_REPLACE, p->win, body, utf8, 8, (uint32_t)tn,
		                    text);
	if (type && type_n)
		xcb_change_property(c, XCB_PROP_MODE_REPLACE, p->win, type, XCB_ATOM_ATOM, 32, 1,
		                    &type_n);
	xcb_map_window(c, p->win);
	xcb_flush(c);
	return p;
}

int argus_popup_fd(const struct argus_popup *p)
{
	return xcb_get_file_descriptor(p->c);
}

bool argus_popup_events(struct argus_popup *p)
{
	bool open = true;
	xcb_generic_event_t *e;
	while ((e = xcb_poll_for_event(p->c))) {
		switch (e->response_type & 0x7f) {
		case XCB_EXPOSE:
			if (((xcb_expose_event_t *)e)->count == 0)
				draw(p);
			break;
		case XCB_BUTTON_PRESS:
			open = false;
			break;
		default:
			break;
		}
		free(e);
	}
	return open && !xcb_connection_has_error(p->c);
}

void argus_popup_close(struct argus_popup *p)
{
	if (!p)
		return;
	if (!xcb_connection_has_error(p->c)) {
		xcb_destroy_window(p->c, p->win);
		xcb_free_gc(p->c, p->gc);
		xcb_flush(p->c);
	}
	xcb_disconnect(p->c);
	free(p);
}
#else
struct argus_popup *argus_popup_open(const char *display, const char *xauth, const char *summary,
                                     const char *text, char *err, size_t ecap)
{
	(void)display, (void)xauth, (void)summary, (void)text;
	snprintf(err, ecap, "argus was built without libxcb (libxcb1-dev)");
	return NULL;
}

int argus_popup_fd(const struct argus_popup *p)
{
	(void)p;
	return -1;
}

bool argus_popup_events(struct argus_popup *p)
{
	(void)p;
	return false;
}

void argus_popup_close(struct argus_popup *p)
{
	(void)p;
}
#endif
