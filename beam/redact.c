/*
 * redact.c - a report copy for a user who is not root (docs/daemon.md,
 * "Report copies for the app's owner"): every process the viewer does not
 * own keeps its name and pid, and loses its stack frames, file paths and
 * objects; the one-line summary says "[redacted]" where it named them.
 */
#include <stdio.h>
#include <string.h>

#include "beam.h"

#define REDACTED "[redacted]"

/* Replace every occurrence of word (when not empty) in s by REDACTED. */
static void redact_in(char *s, size_t cap, const char *word)
{
	size_t wl = strlen(word), rl = sizeof(REDACTED) - 1;
	if (wl < 2) /* "" or one letter: not a name that can leak */
		return;
	for (char *p = strstr(s, word); p; p = strstr(p + rl, word)) {
		size_t off = (size_t)(p - s), tail = strlen(p + wl);
		if (off + rl + 1 > cap) { /* no room for the mark: cut here */
			*p = 0;
			return;
		}
		if (off + rl + tail + 1 > cap)
			tail = cap - 1 - off - rl; /* cut: never past cap */
		memmove(p + rl, p + wl, tail);
		p[rl + tail] = 0;
		memcpy(p, REDACTED, rl);
	}
}

static void redact_vertex(struct argus_vertex_info *v)
{
	v->stack_first = v->stack_last = v->wait_stack = 0;
}

void argus_diagnosis_redact(struct argus_diagnosis *d, bool (*mine)(void *arg, uint32_t pid),
                            void *arg)
{
	/* the culprits first: their names leave the summary with them */
	struct argus_culprit *cs[ARGUS_DIAG_CANDIDATES + 1];
	uint32_t n = 0;
	cs[n++] = &d->root;
	for (uint32_t i = 0; i < d->ncandidates && i < ARGUS_DIAG_CANDIDATES; i++)
		cs[n++] = &d->candidates[i];
	for (uint32_t i = 0; i < n; i++) {
		struct argus_culprit *c = cs[i];
		if (!c->vid || mine(arg, c->v.pid))
			continue;
		redact_in(d->summary, sizeof(d->summary), c->func);
		redact_in(d->summary, sizeof(d->summary), c->srcline);
		redact_in(d->summary, sizeof(d->summary), c->object);
		snprintf(c->func, sizeof(c->func), "%s", c->func[0] ? REDACTED : "");
		snprintf(c->srcline, sizeof(c->srcline), "%s", c->srcline[0] ? REDACTED : "");
		snprintf(c->object, sizeof(c->object), "%s", c->object[0] ? REDACTED : "");
		redact_vertex(&c->v);
	}
	if (!mine(arg, d->anomaly_v.pid)) {
		redact_in(d->summary, sizeof(d->summary), d->costly_func);
		d->costly_func[0] = 0;
		d->majority[0] = 0;
		redact_vertex(&d->anomaly_v);
	}
	if (d->root.vid && !mine(arg, d->root.v.pid))
		d->majority[0] = 0; /* it names the root's code */
	for (uint32_t i = 0; i < d->path.n && i < ARGUS_PATH_MAX; i++)
		if (!mine(arg, d->path_v[i].pid))
			redact_vertex(&d->path_v[i]);
	for (uint32_t i = 0; i < d->normal_path.n && i < ARGUS_PATH_MAX; i++)
		if (!mine(arg, d->normal_v[i].pid))
			redact_vertex(&d->normal_v[i]);
}
