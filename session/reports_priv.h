/*
 * reports_priv.h - the report sink's notifiers (notifiers.c), private to
 * session/reports.c: one notifier process per session bus.
 */
#ifndef ARGUS_REPORTS_PRIV_H
#define ARGUS_REPORTS_PRIV_H

#include <sys/types.h>

#include "session.h"

#define NOTIFIERS 16
struct notifier {
	pid_t pid; /* 0 = free slot */
	int fd;    /* our end of its socket */
	char bus[512];
};
struct notifier_set {
	struct notifier nf[NOTIFIERS];
	unsigned next; /* the slot taken when all are used */
};

/* Who owns pid: the options' callback, else /proc; false when it is gone. */
bool report_owner_of(const struct argus_report_sink_opts *o, uint32_t pid, uid_t *uid, gid_t *gid);
/* A stall fired: start the notifier of its app's bus now, if none runs. */
void notifiers_warm(struct notifier_set *ns, const struct argus_report_sink_opts *o,
                    const struct argus_stall *s);
/* The notification of d (body, report page) to its app's session bus, by
 * that bus's notifier (o->notify instead, when set). */
void notifiers_send(struct notifier_set *ns, const struct argus_report_sink_opts *o,
                    const struct argus_diagnosis *d, const char *body, const char *report);
/* The sink's end: close the notifiers' sockets, reap those gone. */
void notifiers_close(struct notifier_set *ns);

#endif
