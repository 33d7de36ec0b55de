/*
 * start-diagnosis.h - `argus start`'s always-on diagnosis (start-diagnosis.c):
 * the diagnoser as a daemon sink; reports, notifications and the "stall" /
 * "diagnosis" lines of the JSON stream.
 */
#ifndef ARGUS_CLI_START_DIAGNOSIS_H
#define ARGUS_CLI_START_DIAGNOSIS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "stream.h"

#define START_REPORTS_DIR "/var/lib/argus/reports"

struct start_diag_opts {
	const char *reports_dir; /* NULL = START_REPORTS_DIR, "" = no report files */
	const char *notify_bus;  /* D-Bus address; NULL = the stalled app's session bus */
	bool no_notify;
	uint64_t stall_ns; /* stall threshold; 0 = the trigger's default (2 s) */
};

struct start_diag;

/* Attach to the daemon before argus_daemon_run. 0, or -1 with err set. */
int start_diag_attach(struct start_diag **sd, struct argus_daemon *d,
                      const struct start_diag_opts *o, char *err, size_t ecap);
/* One line of counts on stderr (at exit). */
void start_diag_summary(const struct start_diag *sd);
void start_diag_free(struct start_diag *sd);

#endif /* ARGUS_CLI_START_DIAGNOSIS_H */
