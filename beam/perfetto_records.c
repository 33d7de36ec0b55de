/*
 * perfetto_records.c - the records of a Perfetto trace's windows
 * (docs/report.md): the scheduling of every CPU as ftrace events, the
 * processes and threads they name (ProcessTree), and the CPU samples with
 * their callstacks interned (PerfSample, InternedData).
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "perfetto_priv.h"

/* ---- names ---- */

/* The name of a thread as the scheduler records carry it. */
static const char *sched_name(struct pw *w, uint32_t tid)
{
	const struct thr *t = argus_hmap_get(&w->threads, tid);
	if (t && t->name[0])
		return t->name;
	const char *s = pw_thread(w->c, tid);
	return *s ? s : t ? pw_comm(w->c, t->pid) : "";
}

static void see_thread(struct pw *w, uint32_t pid, uint32_t tid, const char *name, size_t cap)
{
	if (!tid)
		return; /* the idle task */
	bool fresh;
	struct thr *t = argus_hmap_put(&w->threads, tid, &fresh);
	if (!t) {
		w->failed = true;
		return;
	}
	if (pid)
		t->pid = pid;
	if (name && name[0]) {
		size_t k = strnlen(name, cap < ARGUS_COMM_LEN ? cap : ARGUS_COMM_LEN);
		memcpy(t->name, name, k);
		t->name[k] = 0;
	} else if (fresh) {
		const char *s = pw_thread(w->c, tid);
		snprintf(t->name, sizeof(t->name), "%s", *s ? s : pw_comm(w->c, pid));
	}
}

/* ---- scheduling ---- */

void pw_keep_record(void *arg, const struct argus_event *ev)
{
	struct pw *w = arg;
	if (ev->ts <= w->emitted_to && w->emitted_to)
		return;
	if (ev->type != ARGUS_EV_SCHED_SWITCH && ev->type != ARGUS_EV_SCHED_WAKEUP &&
	    ev->type != ARGUS_EV_SCHED_WAKEUP_NEW && ev->type != ARGUS_EV_CPU_SAMPLE)
		return;
	if (w->nrec == w->crec) {
		size_t nc = w->crec ? 2 * w->crec : 4096;
		struct argus_event *n = realloc(w->rec, nc * sizeof(*n));
		if (!n) {
			w->failed = true;
			return;
		}
		w->rec = n;
		w->crec = nc;
	}
	w->rec[w->nrec++] = *ev;
	if (ev->type == ARGUS_EV_SCHED_SWITCH) {
		see_thread(w, ev->pid, ev->tid, NULL, 0);
		see_thread(w, ev->sched_switch.next_pid, ev->sched_switch.next_tid,
		           ev->sched_switch.next_comm, sizeof(ev->sched_switch.next_comm));
	} else if (ev->type != ARGUS_EV_CPU_SAMPLE) {
		see_thread(w, ev->pid, ev->tid, NULL, 0);
		see_thread(w, ev->wakeup.wakee_pid, ev->wakeup.wakee_tid, NULL, 0);
	}
}

void pw_process_tree(struct pw *w, uint64_t ts)
{
	size_t n = w->threads.len, np = 0, nt = 0, pos = 0;
	if (!n)
		return;
	Perfetto__Protos__ProcessTree__Thread *th = calloc(n, sizeof(*th));
	Perfetto__Protos__ProcessTree__Thread **thp = calloc(n, sizeof(*thp));
	Perfetto__Protos__ProcessTree__Process *pr = calloc(n, sizeof(*pr));
	Perfetto__Protos__ProcessTree__Process **prp = calloc(n, sizeof(*prp));
	char(*pnames)[ARGUS_COMM_LEN + 1] = calloc(n, sizeof(*pnames));
	char **cmd = calloc(n, sizeof(*cmd));
	struct argus_hmap seen = {0};
	if (!th || !thp || !pr || !prp || !pnames || !cmd) {
		w->failed = true;
		goto out;
	}
	uint64_t tid;
	struct thr *t;
	while ((t = argus_hmap_next(&w->threads, &pos, &tid))) {
		perfetto__protos__process_tree__thread__init(&th[nt]);
		th[nt].has_tid = 1;
		th[nt].tid = (int32_t)tid;
		if (t->pid) {
			th[nt].has_tgid = 1;
			th[nt].tgid = (int32_t)t->pid;
		}
		th[nt].name = t->name;
		thp[nt] = &th[nt];
		nt++;
		bool fresh;
		if (!t->pid || !argus_hmap_put(&seen, t->pid, &fresh) || !fresh)
			continue;
		perfetto__protos__process_tree__process__init(&pr[np]);
		pr[np].has_pid = 1;
		pr[np].pid = (int32_t)t->pid;
		const char *c = pw_comm(w->c, t->pid);
		snprintf(pnames[np], sizeof(pnames[np]), "%s", *c ? c : t->pid == tid ? t->name : "");
		cmd[np] = pnames[np];
		pr[np].n_cmdline = 1;
		pr[np].cmdline = &cmd[np];
		prp[np] = &pr[np];
		np++;
	}
	Packet p = PERFETTO__PROTOS__TRACE_PACKET__INIT;
	Perfetto__Protos__ProcessTree tree = PERFETTO__PROTOS__PROCESS_TREE__INIT;
	tree.n_processes = np;
	tree.processes = prp;
	tree.n_threads = nt;
	tree.threads = thp;
	p.has_timestamp = 1;
	p.timestamp = ts;
	p.data_case = PERFETTO__PROTOS__TRACE_PACKET__DATA_PROCESS_TREE;
	p.process_tree = &tree;
	pw_emit(w, &p);
out:
	argus_hmap_free(&seen);
	free(th);
	free(thp);
	free(pr);
	free(prp);
	free(pnames);
	free(cmd);
}

/* The scheduler records of one CPU, in bundles. */
void pw_cpu(struct pw *w, uint16_t cpu)
{
	FtraceEvent fe[BUNDLE_MAX], *fep[BUNDLE_MAX];
	Perfetto__Protos__SchedSwitchFtraceEvent sw[BUNDLE_MAX];
	Perfetto__Protos__SchedWakingFtraceEvent wk[BUNDLE_MAX];
	Perfetto__Protos__SchedWakeupNewFtraceEvent wn[BUNDLE_MAX];
	static const size_t NAME = ARGUS_COMM_LEN + 1;
	char(*names)[2][ARGUS_COMM_LEN + 1] = malloc(BUNDLE_MAX * sizeof(*names));
	if (!names) {
		w->failed = true;
		return;
	}
	size_t k = 0;
	for (size_t i = 0; i <= w->nrec; i++) {
		const struct argus_event *ev = i < w->nrec ? &w->rec[i] : NULL;
		if (k && (!ev || k == BUNDLE_MAX)) {
			Packet p = PERFETTO__PROTOS__TRACE_PACKET__INIT;
			Perfetto__Protos__FtraceEventBundle b = PERFETTO__PROTOS__FTRACE_EVENT_BUNDLE__INIT;
			b.has_cpu = 1;
			b.cpu = cpu;
			b.n_event = k;
			b.event = fep;
			p.data_case = PERFETTO__PROTOS__TRACE_PACKET__DATA_FTRACE_EVENTS;
			p.ftrace_events = &b;
			pw_emit(w, &p);
			k = 0;
		}
		if (!ev || ev->cpu != cpu || ev->type == ARGUS_EV_CPU_SAMPLE)
			continue;
		perfetto__protos__ftrace_event__init(&fe[k]);
		fe[k].has_timestamp = fe[k].has_pid = 1;
		fe[k].timestamp = ev->ts;
		fe[k].pid = ev->tid;
		if (ev->type == ARGUS_EV_SCHED_SWITCH) {
			const struct argus_ev_sched_switch *s = &ev->sched_switch;
			Perfetto__Protos__SchedSwitchFtraceEvent *m = &sw[k];
			perfetto__protos__sched_switch_ftrace_event__init(m);
			snprintf(names[k][0], NAME, "%s", ev->tid ? sched_name(w, ev->tid) : "swapper");
			size_t nl = strnlen(s->next_comm, ARGUS_COMM_LEN);
			memcpy(names[k][1], s->next_comm, nl);
			names[k][1][nl] = 0;
			if (!nl)
				snprintf(names[k][1], NAME, "%s",
				         s->next_tid ? sched_name(w, s->next_tid) : "swapper");
			m->prev_comm = names[k][0];
			m->next_comm = names[k][1];
			m->has_prev_pid = m->has_prev_prio = m->has_prev_state = 1;
			m->has_next_pid = m->has_next_prio = 1;
			m->prev_pid = (int32_t)ev->tid;
			m->prev_prio = (int32_t)s->prev_prio;
			m->prev_state = s->prev_state;
			m->next_pid = (int32_t)s->next_tid;
			m->next_prio = (int32_t)s->next_prio;
			fe[k].event_case = PERFETTO__PROTOS__FTRACE_EVENT__EVENT_SCHED_SWITCH;
			fe[k].sched_switch = m;
		} else {
			const struct argus_ev_wakeup *u = &ev->wakeup;
			snprintf(names[k][0], NAME, "%s", sched_name(w, u->wakee_tid));
			if (ev->type == ARGUS_EV_SCHED_WAKEUP) {
				Perfetto__Protos__SchedWakingFtraceEvent *m = &wk[k];
				perfetto__protos__sched_waking_ftrace_event__init(m);
				m->comm = names[k][0];
				m->has_pid = m->has_prio = m->has_success = m->has_target_cpu = 1;
				m->pid = (int32_t)u->wakee_tid;
				m->prio = (int32_t)u->wakee_prio;
				m->success = 1;
				m->target_cpu = (int32_t)u->target_cpu;
				fe[k].event_case = PERFETTO__PROTOS__FTRACE_EVENT__EVENT_SCHED_WAKING;
				fe[k].sched_waking = m;
			} else {
				Perfetto__Protos__SchedWakeupNewFtraceEvent *m = &wn[k];
				perfetto__protos__sched_wakeup_new_ftrace_event__init(m);
				m->comm = names[k][0];
				m->has_pid = m->has_prio = m->has_success = m->has_target_cpu = 1;
				m->pid = (int32_t)u->wakee_tid;
				m->prio = (int32_t)u->wakee_prio;
				m->success = 1;
				m->target_cpu = (int32_t)u->target_cpu;
				fe[k].event_case = PERFETTO__PROTOS__FTRACE_EVENT__EVENT_SCHED_WAKEUP_NEW;
				fe[k].sched_wakeup_new = m;
			}
		}
		fep[k] = &fe[k];
		k++;
		w->n->sched++;
	}
	free(names);
}

/* ---- samples ---- */

static uint64_t str_hash(const char *s)
{
	uint64_t h = 0xcbf29ce484222325ull;
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 0x100000001b3ull;
	return h;
}

static bool same_str(const void *val, void *arg)
{
	return !strcmp(((const struct intern *)val)->s, arg);
}

/* The iid of a string in table m; *fresh when new (to be emitted). */
static uint64_t intern_str(struct pw *w, struct argus_hmap *m, const char *s, bool *fresh)
{
	uint64_t key;
	struct intern *e = argus_hmap_find_by(m, str_hash(s), same_str, (void *)s, &key);
	*fresh = false;
	if (e)
		return e->iid;
	e = argus_hmap_put(m, key, NULL);
	char *dup = strdup(s);
	if (!e || !dup) {
		free(dup);
		w->failed = true;
		return 0;
	}
	e->s = dup;
	e->iid = ++w->next_iid;
	*fresh = true;
	return e->iid;
}

#define SAMPLE_FRAMES 64

void pw_sample(struct pw *w, const struct argus_event *ev)
{
	const uint64_t *ips = NULL;
	uint32_t depth = 0;
	uint32_t id = ev->stack.ustack;
	Packet p = PERFETTO__PROTOS__TRACE_PACKET__INIT;
	Perfetto__Protos__PerfSample ps = PERFETTO__PROTOS__PERF_SAMPLE__INIT;
	Perfetto__Protos__InternedData in = PERFETTO__PROTOS__INTERNED_DATA__INIT;
	Perfetto__Protos__InternedString fn[SAMPLE_FRAMES], mp[SAMPLE_FRAMES];
	Perfetto__Protos__InternedString *fnp[SAMPLE_FRAMES], *mpp[SAMPLE_FRAMES];
	Perfetto__Protos__Mapping map[SAMPLE_FRAMES], *mapp[SAMPLE_FRAMES];
	Perfetto__Protos__Frame fr[SAMPLE_FRAMES], *frp[SAMPLE_FRAMES];
	Perfetto__Protos__Callstack cs = PERFETTO__PROTOS__CALLSTACK__INIT, *csp = &cs;
	uint64_t frame_ids[SAMPLE_FRAMES], path_ids[SAMPLE_FRAMES];
	struct argus_frame names[SAMPLE_FRAMES];
	size_t nfn = 0, nmp = 0, nfr = 0;
	ps.has_cpu = ps.has_pid = ps.has_tid = ps.has_cpu_mode = 1;
	ps.cpu = ev->cpu;
	ps.pid = ev->pid;
	ps.tid = ev->tid;
	ps.cpu_mode = PERFETTO__PROTOS__PROFILING__CPU_MODE__MODE_USER;
	uint64_t skey = (uint64_t)ev->pid << 32 | id;
	uint64_t *known = id ? argus_hmap_get(&w->stacks, skey) : NULL;
	if (known) {
		ps.has_callstack_iid = 1;
		ps.callstack_iid = *known;
	} else if (id && w->sym && w->sym->stack && w->sym->stack(w->sym->arg, id, &ips, &depth) &&
	           depth) {
		uint32_t n = depth < SAMPLE_FRAMES ? depth : SAMPLE_FRAMES;
		for (uint32_t i = 0; i < n; i++) {
			uint64_t ip = ips[n - 1 - i]; /* outermost first */
			uint64_t fkey = ip * 0x9e3779b97f4a7c15ull ^ ev->pid;
			uint64_t *fid = argus_hmap_get(&w->frames, fkey);
			if (fid) {
				frame_ids[i] = *fid;
				continue;
			}
			struct argus_frame *f = &names[nfr];
			memset(f, 0, sizeof(*f));
			if (!w->sym->resolve || !w->sym->resolve(w->sym->arg, ev->pid, ip, f) ||
			    !f->func[0])
				snprintf(f->func, sizeof(f->func), "0x%" PRIx64, ip);
			bool fresh;
			uint64_t fnid = intern_str(w, &w->fnames, f->func, &fresh);
			if (fresh) {
				perfetto__protos__interned_string__init(&fn[nfn]);
				fn[nfn].has_iid = fn[nfn].has_str = 1;
				fn[nfn].iid = fnid;
				fn[nfn].str.data = (uint8_t *)f->func;
				fn[nfn].str.len = strlen(f->func);
				fnp[nfn] = &fn[nfn];
				nfn++;
			}
			const char *obj = f->object[0] ? f->object : "[unknown]";
			uint64_t mid = intern_str(w, &w->mpaths, obj, &fresh);
			if (fresh) {
				/* the mapping and its path share the iid */
				perfetto__protos__interned_string__init(&mp[nmp]);
				mp[nmp].has_iid = mp[nmp].has_str = 1;
				mp[nmp].iid = mid;
				mp[nmp].str.data = (uint8_t *)obj;
				mp[nmp].str.len = strlen(obj);
				mpp[nmp] = &mp[nmp];
				perfetto__protos__mapping__init(&map[nmp]);
				map[nmp].has_iid = 1;
				map[nmp].iid = mid;
				path_ids[nmp] = mid;
				map[nmp].n_path_string_ids = 1;
				map[nmp].path_string_ids = &path_ids[nmp];
				mapp[nmp] = &map[nmp];
				nmp++;
			}
			perfetto__protos__frame__init(&fr[nfr]);
			fr[nfr].has_iid = fr[nfr].has_function_name_id = 1;
			fr[nfr].has_mapping_id = fr[nfr].has_rel_pc = 1;
			fr[nfr].iid = ++w->next_iid;
			fr[nfr].function_name_id = fnid;
			fr[nfr].mapping_id = mid;
			fr[nfr].rel_pc = ip;
			frp[nfr] = &fr[nfr];
			frame_ids[i] = fr[nfr].iid;
			if (!argus_hmap_set_u64(&w->frames, fkey, fr[nfr].iid))
				w->failed = true;
			nfr++;
		}
		cs.has_iid = 1;
		cs.iid = ++w->next_iid;
		cs.n_frame_ids = n;
		cs.frame_ids = frame_ids;
		if (!argus_hmap_set_u64(&w->stacks, skey, cs.iid))
			w->failed = true;
		in.n_function_names = nfn;
		in.function_names = fnp;
		in.n_mapping_paths = nmp;
		in.mapping_paths = mpp;
		in.n_mappings = nmp;
		in.mappings = mapp;
		in.n_frames = nfr;
		in.frames = frp;
		in.n_callstacks = 1;
		in.callstacks = &csp;
		p.interned_data = &in;
		ps.has_callstack_iid = 1;
		ps.callstack_iid = cs.iid;
	}
	p.has_timestamp = 1;
	p.timestamp = ev->ts;
	p.has_sequence_flags = 1;
	p.sequence_flags = SEQ_NEEDS_STATE;
	p.data_case = PERFETTO__PROTOS__TRACE_PACKET__DATA_PERF_SAMPLE;
	p.perf_sample = &ps;
	pw_emit(w, &p);
	w->n->samples++;
}

void pw_free_interns(struct argus_hmap *m)
{
	size_t pos = 0;
	struct intern *e;
	while ((e = argus_hmap_next(m, &pos, NULL)))
		free(e->s);
	argus_hmap_free(m);
}
