/*
 * trace_sample.h - a small deterministic trace used by the trace tests and
 * the fuzz corpus generator: every event type, every table, several chunks.
 */
#ifndef ARGUS_TRACE_SAMPLE_H
#define ARGUS_TRACE_SAMPLE_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "event.h"

struct blob {
	uint8_t *p;
	size_t n;
};

/* Deterministic meta: equal inputs give equal bytes. */
static inline void sample_meta(struct argus_trace_meta *m)
{
	memset(m, 0, sizeof(*m));
	m->version = ARGUS_TRACE_VERSION;
	m->schema = ARGUS_SCHEMA_VERSION;
	m->clock = 1; /* CLOCK_MONOTONIC */
	m->flags = ARGUS_TRACE_F_SYNTH;
	for (int i = 0; i < 16; i++)
		m->boot_id[i] = (uint8_t)(i * 17);
	m->start_mono_ns = 1000;
	m->start_real_ns = 1700000000000000000ull;
	strcpy(m->host, "testhost");
	strcpy(m->kernel, "6.1.0-test #1 SMP");
	strcpy(m->producer, "argus test");
}

/* Event i of the sample: types cycle through every named type. */
static inline void sample_event(size_t i, struct argus_event *e)
{
	static unsigned types[ARGUS_EV_TYPE_MAX];
	static unsigned ntypes;
	if (!ntypes)
		for (unsigned t = 1; t < ARGUS_EV_TYPE_MAX; t++)
			if (argus_event_type_name(t))
				types[ntypes++] = t;
	memset(e, 0, sizeof(*e));
	e->ts = 1000 + (uint64_t)i * 1000;
	e->type = (uint16_t)types[i % ntypes];
	e->pid = 100 + (uint32_t)(i % 3);
	e->tid = e->pid * 10 + (uint32_t)(i % 2);
	e->cpu = (uint16_t)(i % 4);
	uint64_t x = i * 0x9e3779b97f4a7c15ull + 1;
	for (size_t k = 0; k < sizeof(e->raw); k++) {
		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		e->raw[k] = (uint8_t)(k % 3 ? 0 : x); /* partly zero, like real records */
	}
	if (e->type == ARGUS_EV_COMM || e->type == ARGUS_EV_PROC_EXEC ||
	    e->type == ARGUS_EV_PROC_FORK) {
		memset(e->raw, 0, sizeof(e->raw));
		char *comm = e->type == ARGUS_EV_COMM        ? e->comm.comm
		             : e->type == ARGUS_EV_PROC_EXEC ? e->exec.comm
		                                             : e->fork.comm;
		memcpy(comm, "worker-", 7);
		comm[7] = (char)('a' + i % 3);
		if (e->type == ARGUS_EV_COMM)
			e->comm.is_process = (uint32_t)(i % 2);
		if (e->type == ARGUS_EV_PROC_FORK)
			e->fork.child_pid = e->fork.child_tid = 200 + (uint32_t)i;
	}
	if (e->type == ARGUS_EV_DROP) {
		memset(e->raw, 0, sizeof(e->raw));
		e->drop.count = 5;
		e->drop.source = (uint32_t)(i % 2);
	}
}

#define SAMPLE_STRINGS 12
#define SAMPLE_STACKS  5

static inline void sample_string(unsigned k, char *buf, size_t cap)
{
	/* varied lengths, one empty */
	size_t len = k == 3 ? 0 : 1 + (k * 7) % 40;
	if (len >= cap)
		len = cap - 1;
	for (size_t i = 0; i < len; i++)
		buf[i] = (char)('a' + (k + i) % 26);
	buf[len] = '\0';
}

static inline uint32_t sample_stack(unsigned k, uint64_t *ips)
{
	uint32_t depth = k == 0 ? 0 : k == 1 ? ARGUS_STACK_MAX_DEPTH : k * 3;
	for (uint32_t i = 0; i < depth; i++)
		ips[i] = 0x400000 + k * 0x1000 + i * 8;
	return depth;
}

static inline void sample_map(unsigned k, struct argus_map *m)
{
	memset(m, 0, sizeof(*m));
	m->ts = 1000 + k;
	m->pid = 100 + k;
	m->path_str = 1 + k;
	m->start = 0x400000 + k * 0x10000;
	m->end = m->start + 0x8000;
	m->pgoff = k * 0x1000;
	m->prot = 5;
}

static inline void sample_build_id(unsigned k, struct argus_build_id *b)
{
	memset(b, 0, sizeof(*b));
	b->path_str = 1 + k;
	b->len = 20;
	for (unsigned i = 0; i < 20; i++)
		b->id[i] = (uint8_t)(k * 31 + i);
}

static inline void sample_symbol(unsigned k, struct argus_symbol *s)
{
	memset(s, 0, sizeof(*s));
	s->path_str = 1 + k;
	s->name_str = 2 + k;
	s->offset = 0x1000 + k * 0x40;
	s->size = 0x40;
}

static inline void sample_truth(unsigned k, struct argus_truth *t)
{
	memset(t, 0, sizeof(*t));
	t->kind = ARGUS_ANOMALY_LONG_RUNNING + k;
	t->ui_pid = 100;
	t->ui_tid = 1000;
	t->stall_start = 5000 + k * 100;
	t->stall_end = 9000 + k * 100;
	t->root_pid = 101;
	t->root_tid = 1010;
	t->root_start = 5100;
	t->root_end = 8900;
	t->root_func_str = 1;
	t->desc_str = 2;
}

/*
 * Write the sample: nev events in chunks of chunk events, tables spread
 * between the writes, into w.
 */
static inline void sample_fill(struct argus_trace_writer *w, size_t nev)
{
	size_t step = nev / 6 + 1;
	unsigned s = 0, k = 0, t = 0;
	for (size_t i = 0; i < nev; i++) {
		if (i % step == 0) {
			/* a slice of every table before this part of the events */
			char buf[64];
			uint64_t ips[ARGUS_STACK_MAX_DEPTH];
			for (unsigned j = 0; j < 2 && s < SAMPLE_STRINGS; j++, s++) {
				sample_string(s, buf, sizeof(buf));
				argus_trace_intern_string(w, buf, strlen(buf));
			}
			if (k < SAMPLE_STACKS) {
				uint32_t d = sample_stack(k++, ips);
				argus_trace_intern_stack(w, ips, d);
			}
			struct argus_map m;
			struct argus_build_id b;
			struct argus_symbol sy;
			struct argus_truth tr;
			sample_map(t, &m);
			sample_build_id(t, &b);
			sample_symbol(t, &sy);
			sample_truth(t, &tr);
			argus_trace_add_map(w, &m);
			argus_trace_add_build_id(w, &b);
			argus_trace_add_symbol(w, &sy);
			if (t < 3)
				argus_trace_add_truth(w, &tr);
			t++;
		}
		struct argus_event e;
		sample_event(i, &e);
		argus_trace_write(w, &e, 1);
	}
}

/* The bytes written to fd so far (malloc'd). */
static inline int blob_from_fd(struct blob *out, int fd)
{
	off_t size = lseek(fd, 0, SEEK_END);
	out->n = size > 0 ? (size_t)size : 0;
	out->p = malloc(out->n ? out->n : 1);
	return out->p && pread(fd, out->p, out->n, 0) == (ssize_t)out->n ? 0 : -1;
}

/* The sample as a closed file of chunks of chunk events. */
static inline int sample_write(struct blob *out, size_t nev, uint32_t chunk)
{
	int fd = memfd_create("argus-sample", 0);
	if (fd < 0)
		return -1;
	struct argus_trace_meta meta;
	sample_meta(&meta);
	struct argus_trace_writer_opts opts = {.chunk_events = chunk};
	struct argus_trace_writer *w;
	if (argus_trace_writer_fdopen(&w, fd, "sample", &meta, &opts, NULL)) {
		close(fd);
		return -1;
	}
	sample_fill(w, nev);
	int rc = argus_trace_writer_close(w, NULL);
	if (!rc)
		rc = blob_from_fd(out, fd);
	close(fd);
	return rc;
}

#endif
