/*
 * collect.c - the in-memory sink: every diagnosis in firing order, and the
 * names of the processes and threads they mention as they were at the
 * diagnosis (the trigger that knows them may be gone when reports are
 * written: `argus diagnose`, `argus debug`, tests).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "session.h"

struct collector {
	struct argus_session *s;
	struct argus_session_result *res;
	size_t cap;
};

const char *argus_session_result_comm(void *arg, uint32_t pid)
{
	const struct argus_session_result *res = arg;
	for (uint32_t i = 0; i < res->ncomms; i++)
		if (res->comm_pids[i] == pid)
			return res->comms[i];
	return "";
}

const char *argus_session_result_thread_comm(void *arg, uint32_t tid)
{
	const struct argus_session_result *res = arg;
	for (uint32_t i = 0; i < res->nthreads; i++)
		if (res->thread_tids[i] == tid)
			return res->threads[i];
	return "";
}

static void remember(struct collector *c, const struct argus_vertex_info *v)
{
	struct argus_session_result *res = c->res;
	if (v->pid && !*argus_session_result_comm(res, v->pid) && res->ncomms < 64) {
		res->comm_pids[res->ncomms] = v->pid;
		snprintf(res->comms[res->ncomms++], ARGUS_COMM_LEN, "%s",
		         argus_session_comm(c->s, v->pid));
	}
	if (v->tid && !*argus_session_result_thread_comm(res, v->tid) && res->nthreads < 256) {
		res->thread_tids[res->nthreads] = v->tid;
		snprintf(res->threads[res->nthreads++], ARGUS_COMM_LEN, "%s",
		         argus_session_thread_comm(c->s, v->tid));
	}
}

static void on_diagnosis(void *arg, const struct argus_diagnosis *d)
{
	struct collector *c = arg;
	struct argus_session_result *res = c->res;
	if (res->n == c->cap) {
		size_t nc = c->cap ? c->cap * 2 : 8;
		struct argus_diagnosis *nd = realloc(res->d, nc * sizeof(*nd));
		if (!nd) {
			res->oom = true;
			return;
		}
		res->d = nd;
		c->cap = nc;
	}
	res->d[res->n++] = *d;
	const struct argus_vertex_info ui = {.pid = d->stall.pid, .tid = d->stall.tid};
	remember(c, &ui);
	if (d->anomaly)
		remember(c, &d->anomaly_v);
	for (uint32_t k = 0; k < d->ncandidates; k++)
		remember(c, &d->candidates[k].v);
	for (uint32_t k = 0; k < d->path.n; k++)
		remember(c, &d->path_v[k]);
	for (uint32_t k = 0; d->has_normal_path && k < d->normal_path.n; k++)
		remember(c, &d->normal_v[k]);
}

static void on_stall_end(void *arg, const struct argus_stall *s)
{
	struct argus_session_result *res = ((struct collector *)arg)->res;
	for (size_t i = 0; i < res->n; i++)
		if (res->d[i].stall.id == s->id)
			res->d[i].stall.end = s->end;
}

/* A busy stall's diagnosis over its whole time replaces the one made at
 * detection (what the live daemon's final diagnosis line says). */
static void on_final(void *arg, const struct argus_diagnosis *d)
{
	struct collector *c = arg;
	struct argus_session_result *res = c->res;
	for (size_t i = 0; i < res->n; i++)
		if (res->d[i].stall.id == d->stall.id) {
			res->d[i] = *d;
			for (uint32_t k = 0; k < d->ncandidates; k++)
				remember(c, &d->candidates[k].v);
			for (uint32_t k = 0; k < d->path.n; k++)
				remember(c, &d->path_v[k]);
		}
}

static void on_fault(void *arg, const struct argus_trace_error *e)
{
	struct argus_session_result *res = ((struct collector *)arg)->res;
	res->err = *e;
}

/* The source ended: the counts, and the collector is done. */
static void on_end(void *arg, const struct argus_session_stats *st)
{
	struct collector *c = arg;
	c->res->trigger = st->trigger;
	c->res->events = st->events;
	c->res->faults = st->faults;
	c->res->t0 = st->t0;
}

int argus_session_collect(struct argus_session *s, struct argus_session_result *res)
{
	memset(res, 0, sizeof(*res));
	/* owned by the result: freed with it */
	struct collector *c = calloc(1, sizeof(*c));
	if (!c)
		return -1;
	c->s = s;
	c->res = res;
	struct argus_session_sink k = {.diagnosis = on_diagnosis,
	                               .stall_end = on_stall_end,
	                               .final = on_final,
	                               .fault = on_fault,
	                               .end = on_end,
	                               .arg = c};
	if (argus_session_add_sink(s, &k)) {
		free(c);
		return -1;
	}
	res->collector_ = c;
	return 0;
}

void argus_session_result_free(struct argus_session_result *res)
{
	free(res->d);
	free(res->collector_);
	res->d = NULL;
	res->collector_ = NULL;
	res->n = 0;
}

int argus_session_diagnose_file(const char *path, const struct argus_session_opts *o,
                                struct argus_session_result *res)
{
	struct argus_session *s;
	memset(res, 0, sizeof(*res));
	if (argus_session_new(&s, o)) {
		snprintf(res->err.msg, sizeof(res->err.msg), "out of memory");
		return ARGUS_TRACE_ENOMEM;
	}
	if (argus_session_collect(s, res)) {
		argus_session_free(s);
		snprintf(res->err.msg, sizeof(res->err.msg), "out of memory");
		return ARGUS_TRACE_ENOMEM;
	}
	struct argus_trace_error err;
	int rc = argus_session_run_file(s, path, &err);
	if (rc < 0 || rc == 1)
		res->err = err;
	if (!rc && res->oom)
		rc = ARGUS_TRACE_ENOMEM;
	argus_session_free(s);
	return rc;
}
