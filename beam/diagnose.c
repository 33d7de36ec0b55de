/*
 * diagnose.c - one stall -> one diagnosis (docs/diagnosis.md).
 *
 * LongRunning: the anomaly vertex is the root; the causal path back to the
 * UI input (Algorithm 1) and the costly function (the innermost
 * application function on most of the segment's sampled stacks).
 * LongWait and yield loops: Algorithm 2. A baseline (an earlier, similar
 * vertex of the same thread that behaved differently), the normal causal
 * path that ended its wait (Algorithm 1 from the vertex it woke into, or the
 * baseline itself for a flag loop), and in the stall, the thread on that
 * path that did not do its part; recursively for a culprit that is itself
 * blocked (the culprit of the culprit). Candidates rank by path penalty.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "diag_priv.h"

/* ---- names ---- */

const char *argus_algo_name(unsigned algo)
{
	return algo == ARGUS_ALGO_CRITICAL_PATH ? "critical-path" : "beam";
}

const char *argus_root_reason_name(unsigned r)
{
	static const char *const names[] = {"none",           "busy",     "blocked",
	                                    "missing_wakeup", "deadlock", "path_end"};
	return r < sizeof(names) / sizeof(names[0]) ? names[r] : "unknown";
}

/* ---- the anomaly vertex ---- */

/* The UI thread's segment overlapping the stall: for a LongWait the one
 * whose wait lasted longest (its wait covered the stall or timed out), else
 * the current one. A wait that ended before the stall began is not in it,
 * however long (an idle poll the input ended): it is taken only when no
 * segment overlaps the stall. */
static bool anomaly_vertex(const struct ctx *c, struct argus_vertex_info *out)
{
	size_t lo, hi;
	bool found = false;
	uint64_t best = 0;
	dg_thread_range(c, c->stall->tid, &lo, &hi);
	for (size_t i = hi; i-- > lo;) {
		struct argus_vertex_info v;
		if (c->tv[i].start > c->stall->detected ||
		    !argus_graph_vertex(c->view, c->tv[i].vid, &v))
			continue;
		if (c->stall->cls != ARGUS_STALL_LONG_WAIT)
			return *out = v, true;
		uint64_t w = dg_wait_len(c, &v, c->stall->detected);
		bool before = v.end + w < c->stall->since;
		if (before && found)
			break;
		if (!found || w > best) {
			*out = v;
			best = w;
			found = true;
		}
		if (before)
			break;
	}
	return found;
}

static int cmp_cand(const void *a, const void *b)
{
	const struct argus_culprit *x = a, *y = b;
	if (x->penalty != y->penalty)
		return x->penalty < y->penalty ? -1 : 1;
	if (x->depth != y->depth) /* deeper = the culprit of the culprit */
		return x->depth > y->depth ? -1 : 1;
	/* a thread seen blocked in the stall beats one that merely did not
	 * wake the waiter (an absence, inferred) */
	bool xb = x->reason == ARGUS_ROOT_BLOCKED || x->reason == ARGUS_ROOT_DEADLOCK;
	bool yb = y->reason == ARGUS_ROOT_BLOCKED || y->reason == ARGUS_ROOT_DEADLOCK;
	if (xb != yb)
		return xb ? -1 : 1;
	return x->vid < y->vid ? -1 : x->vid > y->vid; /* qsort is not stable */
}

static uint64_t mono_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

int argus_diagnose(const struct argus_graph_view *view, const struct argus_stall *stall,
                   const struct argus_beam_params *p, enum argus_algo algo,
                   const struct argus_samples *samples, const struct argus_symbolizer *sym,
                   const char *(*comm)(void *arg, uint32_t pid),
                   const char *(*thread)(void *arg, uint32_t tid), void *comm_arg,
                   struct argus_diagnosis *d)
{
	return argus_diagnose_hinted(view, stall, p, algo, samples, sym, comm, thread, comm_arg,
	                             NULL, d);
}

int argus_diagnose_hinted(const struct argus_graph_view *view, const struct argus_stall *stall,
                          const struct argus_beam_params *p, enum argus_algo algo,
                          const struct argus_samples *samples, const struct argus_symbolizer *sym,
                          const char *(*comm)(void *arg, uint32_t pid),
                          const char *(*thread)(void *arg, uint32_t tid), void *comm_arg,
                          const struct argus_diag_hints *h, struct argus_diagnosis *d)
{
	static const struct argus_diag_hints none;
	uint64_t t0 = mono_ns();
	struct ctx c = {.view = view,
	                .p = p,
	                .sym = sym,
	                .samples = samples,
	                .stall = stall,
	                .algo = algo,
	                .h = h ? h : &none};
	c.g = argus_beam_graph_of_view(view);
	memset(d, 0, sizeof(*d));
	c.d = d;
	d->stall = *stall;
	d->algo = (uint8_t)algo;
	d->no_weak_edges = p->no_weak_edges;
	if (dg_build_index(&c) < 0) {
		free(c.tv);
		free(c.tt);
		return -1;
	}
	d->vertices_indexed = c.ntv;
	struct argus_vertex_info a;
	bool have_a =
	    c.h->anomaly ? argus_graph_vertex(view, c.h->anomaly, &a) : anomaly_vertex(&c, &a);
	if (!have_a) {
		snprintf(d->summary, sizeof(d->summary),
		         "no segment of the UI thread in the window");
		goto done;
	}
	d->anomaly = a.id;
	d->anomaly_v = a;
	uint64_t now = stall->detected;
	dg_step(&c, "stall %" PRIu64 " of %u/%u (%s): anomaly vertex " ARGUS_VID_FMT "%s",
	        stall->id, stall->pid, stall->tid, argus_stall_class_name(stall->cls),
	        ARGUS_VID_ARGS(a.id), c.h->anomaly ? " (given)" : "");

	/* a user's baseline or normal path asks for the comparison, whatever
	 * the algorithm the session runs */
	if (c.h->baseline || c.h->normal_path)
		algo = c.algo = ARGUS_ALGO_BEAM;
	if (algo == ARGUS_ALGO_CRITICAL_PATH) {
		argus_critical_path(&c.g, a.id, p, &d->path);
		/* the baseline names the segment that cost most on the path:
		 * the longest on CPU, or the longest wait (critical-path
		 * analysis' usual answer) */
		struct argus_vertex_info best, v;
		uint64_t cost = 0;
		bool have = false;
		for (uint32_t i = 0; i < d->path.n; i++) {
			if (!argus_graph_vertex(view, d->path.v[i], &v))
				continue;
			uint64_t w = dg_wait_len(&c, &v, now);
			uint64_t k = v.oncpu_ns > w ? v.oncpu_ns : w;
			if (!have || k > cost) {
				best = v;
				cost = k;
				have = true;
			}
		}
		c.rule = "critical-path";
		dg_note(&c, c.rule);
		if (have)
			dg_add_candidate(&c, &best,
			                 best.oncpu_ns >= dg_wait_len(&c, &best, now)
			                     ? ARGUS_ROOT_BUSY
			                     : ARGUS_ROOT_PATH_END,
			                 d->path.penalty, 0);
	} else {
		struct argus_path paths[ARGUS_DIAG_CANDIDATES];
		int np = argus_beam_search(&c.g, a.id, p, paths, ARGUS_DIAG_CANDIDATES, NULL);
		if (np < 0) {
			free(c.tv);
			free(c.tt);
			return -1;
		}
		if (np > 0)
			d->path = paths[0];
		if (stall->cls == ARGUS_STALL_LONG_RUNNING) {
			c.rule = "costly-function";
			dg_note(&c, c.rule);
			dg_add_candidate(&c, &a, ARGUS_ROOT_BUSY, 0, 0);
		} else {
			uint32_t chain[32] = {a.tid};
			struct dg_args x = {
			    stall->since, now, chain, 1, 0, 0, stall->cls == ARGUS_STALL_YIELD_LOOP,
			    NULL};
			int r = dg_explain(&c, &a, stall->cls, &x);
			if (r < 0) {
				free(c.tv);
				free(c.tt);
				return -1;
			}
			c.rule = "the-wait-itself";
			if (!c.ncand) /* nothing to compare with: the wait itself */
				dg_note(&c, c.rule);
			if (!c.ncand)
				dg_add_candidate(&c, &a,
				                 stall->cls == ARGUS_STALL_YIELD_LOOP
				                     ? ARGUS_ROOT_BUSY
				                     : ARGUS_ROOT_BLOCKED,
				                 0, 0);
		}
	}
	qsort(c.cand, c.ncand, sizeof(c.cand[0]), cmp_cand);
	for (uint32_t i = 0; i < c.ncand; i++)
		dg_step(&c, "rank %u: " ARGUS_VID_FMT " (%u/%u) %s, penalty %d, depth %u", i + 1,
		        ARGUS_VID_ARGS(c.cand[i].vid), c.cand[i].v.pid, c.cand[i].v.tid,
		        argus_root_reason_name(c.cand[i].reason), c.cand[i].penalty,
		        c.cand[i].depth);
	/* A busy stall whose thread was on CPU (or runnable) at least three
	 * quarters of its time did the stall's work all along: the short
	 * waits that split it into segments (the toolkit's round trips to the
	 * server, events pumped inside the work) do not restart it, and its
	 * samples count from the stall's start. */
	uint64_t span = now > stall->since ? now - stall->since : 0;
	bool unwaited = stall->cls == ARGUS_STALL_LONG_RUNNING && stall->blocked_ns * 4 <= span;
	for (uint32_t i = 0; i < c.ncand && i < ARGUS_DIAG_CANDIDATES; i++) {
		struct argus_culprit *cu = &c.cand[i];
		bool waited = cu->reason == ARGUS_ROOT_BLOCKED || cu->reason == ARGUS_ROOT_DEADLOCK;
		uint32_t ns = 0;
		if (!waited) {
			uint64_t to =
			    cu->v.end > now || (cu->v.flags & ARGUS_VF_OPEN) ? now : cu->v.end;
			struct argus_frame f;
			uint64_t from = cu->v.start;
			if (unwaited && cu->v.tid == stall->tid && from > stall->since)
				from = stall->since;
			bool whole = false;
			dg_costly_function(&c, cu->v.pid, cu->v.tid, from, to, &f, &ns, &whole);
			if (f.func[0])
				dg_take_frame(cu, &f);
			if (whole && f.func[0]) { /* the chains' answer stands, in any object */
				d->candidates[d->ncandidates++] = *cu;
				continue;
			}
		}
		dg_name_vertex(&c, cu, waited);
		d->candidates[d->ncandidates++] = *cu;
	}
	d->baseline = c.baseline;
	if (c.has_normal) {
		d->normal_path = c.normal_path;
		d->has_normal_path = true;
	}
	for (uint32_t k = 0; k < d->path.n; k++)
		argus_graph_vertex(view, d->path.v[k], &d->path_v[k]);
	for (uint32_t k = 0; d->has_normal_path && k < d->normal_path.n; k++)
		argus_graph_vertex(view, d->normal_path.v[k], &d->normal_v[k]);
	if (stall->cls == ARGUS_STALL_LONG_RUNNING) {
		uint64_t to = now;
		/* the stall's time is what the costly function explains: not
		 * the handler's work before the input it left unread */
		uint64_t from = a.start > stall->since && !unwaited ? a.start : stall->since;
		struct argus_frame f;
		d->costly_samples =
		    dg_costly_function(&c, a.pid, a.tid, from, to, &f, &d->samples, NULL);
		snprintf(d->costly_func, sizeof(d->costly_func), "%s", f.func);
		dg_majority_path(&c, a.pid, a.tid, from, to, d->majority, sizeof(d->majority));
	}
	if (d->ncandidates) {
		d->root = d->candidates[0];
		if (d->root.reason == ARGUS_ROOT_BUSY && !d->costly_func[0]) {
			const struct argus_vertex_info *rv = &d->root.v;
			uint64_t to = rv->end > now || (rv->flags & ARGUS_VF_OPEN) ? now : rv->end;
			uint64_t from = rv->start;
			if (unwaited && rv->tid == stall->tid && from > stall->since)
				from = stall->since;
			dg_majority_path(&c, rv->pid, rv->tid, from, to, d->majority,
			                 sizeof(d->majority));
		}
		const struct argus_culprit *r = &d->root;
		const char *pname = comm ? comm(comm_arg, r->v.pid) : NULL;
		char tname[ARGUS_COMM_LEN + 4], who[64];
		argus_thread_suffix(pname, thread ? thread(comm_arg, r->v.tid) : NULL, tname,
		                    sizeof(tname));
		snprintf(who, sizeof(who), "%s %u/%u%s", pname ? pname : "", r->v.pid, r->v.tid,
		         tname);
		const char *fn = r->func[0] ? r->func : (d->costly_func[0] ? d->costly_func : NULL);
		char in[200] = "";
		if (fn && r->func[0] && r->system) /* not the app's code: say whose */
			snprintf(in, sizeof(in), " in %s (%s)", fn, r->object);
		else if (fn)
			snprintf(in, sizeof(in), " in %s", fn);
		const char *sc = r->v.wait_nr != 0xffff ? argus_syscall_name(r->v.wait_nr) : NULL;
		int n; /* the length snprintf wanted, for truncation below */
		switch (r->reason) {
		case ARGUS_ROOT_BUSY:
			n = snprintf(d->summary, sizeof(d->summary), "%s busy on CPU%s", who, in);
			break;
		case ARGUS_ROOT_BLOCKED:
		case ARGUS_ROOT_DEADLOCK:
			if (r->v.flags & ARGUS_VF_STOPPED) {
				uint64_t at = stall->detected;
				n = snprintf(d->summary, sizeof(d->summary),
				             "%s is stopped (SIGSTOP or a debugger), for %.1f s at "
				             "detection",
				             who,
				             at > r->v.end ? (double)(at - r->v.end) / 1e9 : 0.0);
				break;
			}
			n = snprintf(d->summary, sizeof(d->summary), "%s blocked%s (%s)%s", who, in,
			             sc ? sc : "wait",
			             r->reason == ARGUS_ROOT_DEADLOCK
			                 ? " waiting on the stalled app itself"
			                 : "");
			break;
		case ARGUS_ROOT_MISSING_WAKE:
			n = snprintf(d->summary, sizeof(d->summary),
			             "%s ran%s but did not wake the waiting thread", who,
			             fn ? in + 3 : " its part");
			break;
		default:
			n = snprintf(d->summary, sizeof(d->summary),
			             "%s%s (end of the causal path)", who, in);
		}
		/* a long function or object name: the one line ends in "..." so
		 * a reader sees it was cut (the report has the whole names) */
		if (n >= (int)sizeof(d->summary))
			memcpy(d->summary + sizeof(d->summary) - 4, "...", 4);
	}
done:
	free(c.tv);
	free(c.tt);
	d->diagnose_ns = mono_ns() - t0;
	return 0;
}
