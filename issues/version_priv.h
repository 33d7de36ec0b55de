/*
 * version_priv.h - build ids as app versions (version.c; not installed).
 */
#ifndef ARGUS_ISSUES_VERSION_PRIV_H
#define ARGUS_ISSUES_VERSION_PRIV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "event.h"

#define VERSION_LEN    68
#define VERSIONS_CACHE 32

struct version_entry {
	char object[64]; /* file name */
	char id[VERSION_LEN];
};

struct versions {
	/* live: the last processes asked */
	uint32_t pid[VERSIONS_CACHE];
	char id[VERSIONS_CACHE][VERSION_LEN];
	unsigned next;
	/* a trace's build-id table by file name */
	struct version_entry *table;
	size_t ntable;
};

/* The build id of a running process's executable, hex ("" unknown). */
void version_live(struct versions *v, uint32_t pid, char *out, size_t cap);
/* Read a trace's build-id table (the whole file: it is complete at the end). */
int version_table_of_trace(struct versions *v, const char *path);
void version_of_object(const struct versions *v, const char *object, char *out, size_t cap);
void versions_free(struct versions *v);

#endif /* ARGUS_ISSUES_VERSION_PRIV_H */
