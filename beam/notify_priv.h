/*
 * notify_priv.h - the notification's fallback window (notify_popup.c), used
 * by the notifier (notify.c) when the desktop notification does not answer
 * in time (docs/daemon.md).
 */
#ifndef ARGUS_NOTIFY_PRIV_H
#define ARGUS_NOTIFY_PRIV_H

#include <stdbool.h>
#include <stddef.h>

/* The summary every notification carries (desktop and fallback). */
#define ARGUS_NOTIFY_SUMMARY "pinwheel root cause found"
/* How long a Notify call may take before the notification is shown as a
 * window of argus's own as well (docs/daemon.md says why 0.5 s). */
#define ARGUS_NOTIFY_FALLBACK_MS 500
/* The fallback window's WM_CLASS (instance, class). */
#define ARGUS_POPUP_INSTANCE "argus-notification"
#define ARGUS_POPUP_CLASS    "argus"

struct argus_popup;

/* Shows summary and text (lines split at '\n', long ones wrapped) in an
 * override-redirect window at the top right corner of display (NULL = the
 * DISPLAY variable), connecting with xauth's cookies when not NULL or "".
 * NULL on failure (err says why). */
struct argus_popup *argus_popup_open(const char *display, const char *xauth, const char *summary,
                                     const char *text, char *err, size_t ecap);
/* The connection's descriptor: readable when events wait. */
int argus_popup_fd(const struct argus_popup *p);
/* Handles the waiting events (draws on Expose); false once the window is
 * done: clicked, or its connection gone. */
bool argus_popup_events(struct argus_popup *p);
/* Takes the window down and closes its connection. */
void argus_popup_close(struct argus_popup *p);

#endif
