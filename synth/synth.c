/*
 * synth.c - the public entry of `argus synth`: options, the anomaly list,
 * and the run loop that drives the simulation to the requested record count.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "synth_int.h"

#define DEFAULT_START_NS 3600000000000ULL /* an hour after boot */

void argus_synth_opts_default(struct argus_synth_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->seed = 1;
	o->events = 1000000;
	o->apps = 4;
	o->cpus = 4;
	o->anomalies = ARGUS_SYNTH_ANOMALIES_ALL;
	o->ambiguous = 0.4;
	o->rate = 30000;
	o->start_ns = DEFAULT_START_NS;
}

const char *argus_synth_opts_check(const struct argus_synth_opts *o)
{
	if (o->events < ARGUS_SYNTH_MIN_EVENTS || o->events > ARGUS_SYNTH_MAX_EVENTS)
		return "event count must be within 1000 .. 50000000";
	if (o->apps < 1 || o->apps > ARGUS_SYNTH_MAX_APPS)
		return "number of apps must be within 1 .. 16";
	if (o->cpus < 1 || o->cpus > ARGUS_SYNTH_MAX_CPUS)
		return "number of CPUs must be within 1 .. 64";
	if (o->anomalies & ~(uint32_t)ARGUS_SYNTH_ANOMALIES_ALL)
		return "unknown anomaly kind";
	if (!(o->ambiguous >= 0.0 && o->ambiguous <= 0.9))
		return "ambiguous share must be within 0 .. 0.9";
	if (o->rate < 2000 || o->rate > 500000)
		return "rate must be within 2000 .. 500000 records per second";
	if (o->start_ns > (1ULL << 62))
		return "start time too large";
	return NULL;
}

int argus_synth_parse_anomalies(const char *str, uint32_t *mask, const char **bad)
{
	uint32_t m = 0;
	const char *c = str;
	*bad = NULL;
	if (!*c) {
		*bad = str;
		return -1;
	}
	while (*c) {
		const char *end = strchr(c, ',');
		size_t n = end ? (size_t)(end - c) : strlen(c);
		bool ok = false;
		if (n == 3 && !strncmp(c, "all", 3)) {
			m |= ARGUS_SYNTH_ANOMALIES_ALL;
			ok = true;
		} else if (n == 4 && !strncmp(c, "none", 4)) {
			ok = true;
		} else if (n == 6 && !strncmp(c, "decoys", 6)) {
			m |= ARGUS_SYNTH_ANOMALY(ARGUS_ANOMALY_DECOY_IDLE) |
			     ARGUS_SYNTH_ANOMALY(ARGUS_ANOMALY_DECOY_BUSY);
			ok = true;
		} else {
			for (unsigned k = 1; k <= 7; k++) {
				const char *name = argus_anomaly_kind_name(k);
				if (name && strlen(name) == n && !strncmp(c, name, n)) {
					m |= ARGUS_SYNTH_ANOMALY(k);
					ok = true;
				}
			}
		}
		if (!ok) {
			*bad = c;
			return -1;
		}
		c = end ? end + 1 : c + n;
	}
	*mask = m;
	return 0;
}

int argus_synth_run(const struct argus_synth_opts *o, const struct argus_sink *sink,
                    struct argus_synth_stats *stats)
{
	if (argus_synth_opts_check(o))
		return ARGUS_SYNTH_EINVAL;
	struct sim *s = calloc(1, sizeof(*s));
	if (!s)
		return ARGUS_SYNTH_ENOMEM;
	s->o = *o;
	s->sink = sink;
	s->ncpu = o->cpus;
	for (unsigned c = 0; c < s->ncpu; c++)
		snprintf(s->cpu[c].idle_comm, sizeof(s->cpu[c].idle_comm), "swapper/%u", c);
	s->now = s->t0 = o->start_ns;
	sy_rng_seed(&s->rng, o->seed);

	int err = sy_world_init(s);
	if (!err)
		err = sy_desktop_init(s);
	if (!err)
		err = sy_world_publish(s);
	if (!err) {
		sy_desktop_start(s);
		struct hitem h;
		while (!s->done && s->emitted + s->nbuf < s->o.events) {
			/* the earliest of the CPUs' next looks and the heap's top */
			int c = sy_cpu_next(s);
			if (c >= 0 &&
			    (!s->nheap || s->cpu[c].at < s->heap[0].t ||
			     (s->cpu[c].at == s->heap[0].t && s->cpu[c].seq < s->heap[0].seq))) {
				if (s->cpu[c].at > s->now)
					s->now = s->cpu[c].at;
				sy_cpu_process(s, (unsigned)c);
				continue;
			}
			if (!sy_heap_pop(s, &h))
				break;
			if (h.t > s->now)
				s->now = h.t;
			switch (h.kind) {
			case H_TIMEOUT:
				sy_timeout_fire(s, &s->th[h.a], h.gen);
				break;
			default:
				sy_desktop_event(s, &h);
				break;
			}
		}
		if (!s->done)
			sy_ev_flush(s);
		err = s->err;
	}
	if (stats) {
		s->st.events = s->emitted;
		s->st.processes = s->nproc;
		s->st.threads = s->nth;
		*stats = s->st;
	}
	sy_desktop_free(s);
	sy_world_free(s);
	free(s->heap);
	free(s);
	return err;
}
