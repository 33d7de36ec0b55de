/*
 * worker.c - a sink that runs another sink in its own thread, so the
 * diagnosis (graph ingest, trigger, beam search) never holds up the daemon's
 * ingest: the daemon's thread only copies each batch into a queue.
 *
 * Everything goes through one FIFO, in the order the daemon delivered it
 * (table entries before the records that use them, ticks between records).
 * The queue is bounded (max_bytes, every message's allocation counted:
 * records, table entries and ticks); a batch of records that would go above
 * it is dropped and counted - the diagnosis then misses those records, the
 * rest of the daemon does not. Table entries are never dropped (the inner
 * sink's ids must stay the daemon's) but count against the bound, so
 * records give way to them.
 *
 * Behind (more than SHED_ON_BYTES waiting, until it is below SHED_OFF_BYTES
 * again), the queue takes at most a share of records of each process per
 * SHED_EPOCH_NS; a process's records above its share are shed (counted in
 * dropped and in shed). A process flooding the daemon (a hooked app writing
 * its ring as fast as it can, a storm) so costs the diagnosis its share, and
 * the other apps' records - an app that hangs meanwhile - still reach the
 * stall detection within a fraction of a second instead of waiting behind
 * the flood or being dropped with it. Drop records are never shed.
 *
 * The share follows the worker: half of what it took in the last epoch,
 * divided among the processes that sent records then, between SHARE_FLOOR
 * and SHED_SHARE. A fixed share let the queue grow whenever the processes'
 * shares together were more than the worker took (a storm: one flooding
 * process at 2 000 records per 100 ms beside hundreds of others, a worker
 * starved of CPU taking 60 000/s: 46 MiB queued, the stall of an app seen
 * 7 s late); this one drains it. The apps the trigger found (UI threads:
 * argus_worker_favour) are never shed, nor the records of other processes
 * that switch them onto a CPU or wake them: the stall detection needs them.
 */
#include <errno.h>
#include <fcntl.h>
#include <malloc.h>
#include <pthread.h>
#include <stdatomic.h>
#include <sched.h>
#include <sys/resource.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "hashmap.h"
#include "session.h"

#define SHED_ON_BYTES  (8u << 20) /* ~130 k records waiting */
#define SHED_OFF_BYTES (2u << 20)
#define SHED_EPOCH_NS  100000000ull /* 100 ms */
#define SHED_SHARE     2000u        /* records per process per epoch: 20 000/s at most */
#define SHARE_FLOOR    256u         /* and at least 2 560/s */
#define FAVOUR_MAX     64u          /* apps never shed (the newest) */
/* with a tick, the worker is woken by the tick (or this much queued) */
#define WAKE_BYTES (1u << 20)

enum msg_kind { M_EVENTS, M_STRING, M_STACK, M_MAP, M_SYMBOL, M_TICK };

struct msg {
	struct msg *next;
	enum msg_kind kind;
	size_t n;    /* records, string bytes or stack depth */
	size_t size; /* allocated (malloc_usable_size), counted in the queue's bytes */
	uint64_t tick;
	struct argus_map map;
	struct argus_symbol sym;
	_Alignas(8) unsigned char data[]; /* records, string bytes or ips */
};

struct argus_worker {
	struct argus_sink inner;
	void (*tick)(void *arg, uint64_t stream_ns);
	void *tick_arg;
	pthread_t thread;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	struct msg *head, *tail;
	uint64_t max_bytes;
	bool stop, started;
	struct argus_worker_stats st; /* under mu; events, table_losses and
	                                 inner_errors are the atomics below */
	/* What the worker thread counts without the lock: it takes all that
	 * is queued at once and runs it, a lock and an unlock per wake-up
	 * instead of two of each per message (every table entry is one); the
	 * queue's bytes still go down as each message is taken. */
	_Atomic uint64_t bytes; /* of queued messages */
	_Atomic uint64_t events, table_losses, inner_errors;
	atomic_bool tick_pending;
	/* apps (argus_worker_favour; under mu) */
	uint32_t favour[FAVOUR_MAX];
	unsigned nfavour, favour_gen;
	/* shedding: the producer's thread only */
	bool shedding;
	uint64_t epoch_ns;          /* start of the share's epoch */
	uint64_t epoch_events;      /* the worker's events then */
	uint32_t share;             /* records per process in this epoch */
	struct argus_hmap taken;    /* pid -> records queued in this epoch (while shedding) */
	struct argus_hmap fav;      /* pid -> 1: favour, copied at an epoch's start */
	unsigned fav_gen;
	struct argus_event *kept;   /* the batch's records not shed */
	size_t kept_cap;
};

static uint64_t mono_ns(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000ull + (uint64_t)t.tv_nsec;
}

/* A new epoch every SHED_EPOCH_NS (called with the worker's events):
 * the share from what the worker took in the last one and how many
 * processes sent records then (while shedding; else 1). */
static void epoch_roll(struct argus_worker *w, uint64_t now, uint64_t events)
{
	if (w->epoch_ns && now - w->epoch_ns < SHED_EPOCH_NS)
		return;
	uint64_t took = w->epoch_ns ? (events - w->epoch_events) * SHED_EPOCH_NS /
	                                  (now - w->epoch_ns)
	                            : 2ull * SHED_SHARE;
	uint64_t senders = w->taken.len ? w->taken.len : 1;
	uint64_t share = took / 2 / senders;
	w->share = share < SHARE_FLOOR   ? SHARE_FLOOR
	           : share > SHED_SHARE ? SHED_SHARE
	                                : (uint32_t)share;
	argus_hmap_free(&w->taken);
	w->epoch_ns = now;
	w->epoch_events = events;
	pthread_mutex_lock(&w->mu);
	if (w->fav_gen != w->favour_gen) {
		argus_hmap_free(&w->fav);
		for (unsigned i = 0; i < w->nfavour && i < FAVOUR_MAX; i++)
			argus_hmap_put(&w->fav, w->favour[i], NULL);
		w->fav_gen = w->favour_gen;
	}
	pthread_mutex_unlock(&w->mu);
}

/* A record an app needs: its own, and another process's that switches it
 * onto a CPU or wakes it (its time on and off CPU is the stall's class). */
static bool favoured(const struct argus_worker *w, const struct argus_event *e)
{
	if (!w->fav.len)
		return false;
	if (argus_hmap_get(&w->fav, e->pid))
		return true;
	if (e->type == ARGUS_EV_SCHED_SWITCH)
		return argus_hmap_get(&w->fav, e->sched_switch.next_pid);
	if (e->type == ARGUS_EV_SCHED_WAKEUP || e->type == ARGUS_EV_SCHED_WAKEUP_NEW)
		return argus_hmap_get(&w->fav, e->wakeup.wakee_pid);
	return false;
}

/* The records of a batch within their processes' shares (w->kept; n
 * becomes their number); false when out of memory (nothing shed). */
static bool shed(struct argus_worker *w, const struct argus_event **ev, size_t *n)
{
	if (*n > w->kept_cap) {
		struct argus_event *k = realloc(w->kept, *n * sizeof(*k));
		if (!k)
			return false;
		w->kept = k;
		w->kept_cap = *n;
	}
	size_t m = 0;
	for (size_t i = 0; i < *n; i++) {
		const struct argus_event *e = &(*ev)[i];
		if (e->type != ARGUS_EV_DROP && !favoured(w, e)) {
			uint64_t *c = argus_hmap_put(&w->taken, e->pid, NULL);
			if (c && ++*c > w->share)
				continue;
		}
		w->kept[m++] = *e;
	}
	*ev = w->kept;
	*n = m;
	return true;
}

void argus_worker_favour(struct argus_worker *w, uint32_t pid)
{
	pthread_mutex_lock(&w->mu);
	bool known = false;
	for (unsigned i = 0; i < w->nfavour && i < FAVOUR_MAX && !known; i++)
		known = w->favour[i] == pid;
	if (!known) {
		w->favour[w->nfavour++ % FAVOUR_MAX] = pid;
		w->favour_gen++;
	}
	pthread_mutex_unlock(&w->mu);
}

static void push(struct argus_worker *w, struct msg *m)
{
	m->next = NULL;
	pthread_mutex_lock(&w->mu);
	if (w->tail)
		w->tail->next = m;
	else
		w->head = m;
	w->tail = m;
	uint64_t bytes = atomic_fetch_add(&w->bytes, m->size) + m->size;
	if (bytes > w->st.max_queued_bytes)
		w->st.max_queued_bytes = bytes;
	/* a producer that ticks (the daemon, after each delivery) wakes the
	 * worker once a tick, not at each batch and table entry: it would
	 * run each and sleep again, a futex wake-up apiece */
	if (!w->tick || m->kind == M_TICK || bytes >= WAKE_BYTES)
		pthread_cond_signal(&w->cv);
	pthread_mutex_unlock(&w->mu);
}

static struct msg *new_msg(enum msg_kind kind, size_t data_bytes)
{
	struct msg *m = malloc(sizeof(*m) + data_bytes);
	if (m) {
		memset(m, 0, sizeof(*m));
		m->kind = kind;
		/* what the allocator gave: a batch of 4 096 records and its
		 * header take a 320 KiB size class, not 256 KiB + 112 bytes */
		m->size = malloc_usable_size(m);
	}
	return m;
}

static int w_events(void *arg, const struct argus_event *ev, size_t n)
{
	struct argus_worker *w = arg;
	uint64_t queued = atomic_load(&w->bytes), events = atomic_load(&w->events);
	epoch_roll(w, mono_ns(), events);
	if (w->shedding ? queued > SHED_OFF_BYTES : queued > SHED_ON_BYTES) {
		w->shedding = true;
		size_t before = n;
		if (shed(w, &ev, &n) && n < before) {
			pthread_mutex_lock(&w->mu);
			w->st.dropped += before - n;
			w->st.shed += before - n;
			pthread_mutex_unlock(&w->mu);
		}
		if (!n)
			return 0;
	} else {
		w->shedding = false;
	}
	size_t bytes = n * sizeof(*ev);
	bool full = atomic_load(&w->bytes) + sizeof(struct msg) + bytes > w->max_bytes;
	if (full) {
		pthread_mutex_lock(&w->mu);
		w->st.dropped += n;
		pthread_mutex_unlock(&w->mu);
	}
	struct msg *m = full ? NULL : new_msg(M_EVENTS, bytes);
	if (!m) {
		if (!full) {
			pthread_mutex_lock(&w->mu);
			w->st.dropped += n;
			pthread_mutex_unlock(&w->mu);
		}
		return 0; /* the daemon's other consumers go on */
	}
	m->n = n;
	memcpy(m->data, ev, bytes);
	push(w, m);
	return 0;
}

static uint32_t w_string(void *arg, const char *s, size_t len)
{
	struct argus_worker *w = arg;
	struct msg *m = new_msg(M_STRING, len + 1);
	if (!m) {
		atomic_fetch_add(&w->table_losses, 1);
		return 0;
	}
	m->n = len;
	memcpy(m->data, s, len);
	m->data[len] = 0;
	push(w, m);
	return 0; /* the daemon does not use a sink's ids */
}

static uint32_t w_stack(void *arg, const uint64_t *ips, uint32_t depth)
{
	struct argus_worker *w = arg;
	struct msg *m = new_msg(M_STACK, depth * sizeof(*ips));
	if (!m) {
		atomic_fetch_add(&w->table_losses, 1);
		return 0;
	}
	m->n = depth;
	if (depth)
		memcpy(m->data, ips, depth * sizeof(*ips));
	push(w, m);
	return 0;
}

static int w_map(void *arg, const struct argus_map *map)
{
	struct argus_worker *w = arg;
	struct msg *m = new_msg(M_MAP, 0);
	if (!m)
		return -1;
	m->map = *map;
	push(w, m);
	return 0;
}

static int w_symbol(void *arg, const struct argus_symbol *sym)
{
	struct argus_worker *w = arg;
	struct msg *m = new_msg(M_SYMBOL, 0);
	if (!m)
		return -1;
	m->sym = *sym;
	push(w, m);
	return 0;
}

void argus_worker_tick(struct argus_worker *w, uint64_t stream_ns)
{
	/* one pending tick is enough: a busy worker catches up with the last */
	if (atomic_exchange(&w->tick_pending, true))
		return;
	struct msg *m = new_msg(M_TICK, 0);
	if (!m) {
		atomic_store(&w->tick_pending, false);
		return;
	}
	m->tick = stream_ns;
	push(w, m);
}

/* Runs in the worker without the lock. */
static void run_msg(struct argus_worker *w, struct msg *m)
{
	const struct argus_sink *s = &w->inner;
	switch (m->kind) {
	case M_EVENTS:
		if (s->events &&
		    s->events(s->arg, (const struct argus_event *)(void *)m->data, m->n))
			atomic_fetch_add(&w->inner_errors, 1);
		atomic_fetch_add(&w->events, m->n);
		break;
	case M_STRING:
		if (s->intern_string && !s->intern_string(s->arg, (const char *)m->data, m->n))
			atomic_fetch_add(&w->table_losses, 1);
		break;
	case M_STACK:
		if (s->intern_stack &&
		    !s->intern_stack(s->arg, (const uint64_t *)(void *)m->data, (uint32_t)m->n))
			atomic_fetch_add(&w->table_losses, 1);
		break;
	case M_MAP:
		if (s->map)
			s->map(s->arg, &m->map);
		break;
	case M_SYMBOL:
		if (s->symbol)
			s->symbol(s->arg, &m->sym);
		break;
	case M_TICK:
		if (w->tick)
			w->tick(w->tick_arg, m->tick);
		break;
	}
}

static void *worker(void *arg)
{
	struct argus_worker *w = arg;
	/* above the apps (a storm must not starve the stall detection: at nice
	 * -10 among 400 runnable processes per CPU it got 2 % of one), below
	 * the daemon's ring reader (real-time while awake); its work is
	 * bounded by the shedding above; nothing it forks (the notifier)
	 * keeps it */
	struct sched_param sp = {.sched_priority = 0};
	if (!sched_setscheduler(0, SCHED_OTHER | SCHED_RESET_ON_FORK, &sp))
		setpriority(PRIO_PROCESS, 0, -20);
	pthread_mutex_lock(&w->mu);
	for (;;) {
		while (!w->head && !w->stop)
			pthread_cond_wait(&w->cv, &w->mu);
		if (!w->head)
			break; /* stopped and drained */
		struct msg *list = w->head;
		w->head = w->tail = NULL;
		pthread_mutex_unlock(&w->mu);
		while (list) {
			struct msg *m = list;
			list = m->next;
			atomic_fetch_sub(&w->bytes, m->size);
			if (m->kind == M_TICK)
				atomic_store(&w->tick_pending, false);
			run_msg(w, m);
			free(m);
		}
		pthread_mutex_lock(&w->mu);
	}
	pthread_mutex_unlock(&w->mu);
	return NULL;
}

int argus_worker_new(struct argus_worker **out, const struct argus_sink *inner,
                     void (*tick)(void *arg, uint64_t stream_ns), void *tick_arg,
                     uint64_t max_bytes)
{
	struct argus_worker *w = calloc(1, sizeof(*w));
	if (!w)
		return -1;
	w->inner = *inner;
	w->tick = tick;
	w->tick_arg = tick_arg;
	w->max_bytes = max_bytes ? max_bytes : 256ull << 20;
	pthread_mutex_init(&w->mu, NULL);
	pthread_cond_init(&w->cv, NULL);
	if (pthread_create(&w->thread, NULL, worker, w)) {
		pthread_mutex_destroy(&w->mu);
		pthread_cond_destroy(&w->cv);
		free(w);
		return -1;
	}
	w->started = true;
	*out = w;
	return 0;
}

struct argus_sink argus_worker_sink(struct argus_worker *w)
{
	return (struct argus_sink){.events = w_events,
	                           .intern_string = w_string,
	                           .intern_stack = w_stack,
	                           .map = w_map,
	                           .symbol = w_symbol,
	                           .arg = w};
}

void argus_worker_stop(struct argus_worker *w)
{
	if (!w || !w->started)
		return;
	pthread_mutex_lock(&w->mu);
	w->stop = true;
	pthread_cond_signal(&w->cv);
	pthread_mutex_unlock(&w->mu);
	pthread_join(w->thread, NULL);
	w->started = false;
}

void argus_worker_get_stats(struct argus_worker *w, struct argus_worker_stats *st)
{
	pthread_mutex_lock(&w->mu);
	*st = w->st;
	pthread_mutex_unlock(&w->mu);
	st->events = atomic_load(&w->events);
	st->table_losses = atomic_load(&w->table_losses);
	st->inner_errors = atomic_load(&w->inner_errors);
	st->queued_bytes = atomic_load(&w->bytes);
}

int argus_worker_group_nice(int nice)
{
	if (getsid(0) != getpid())
		return 1;
	int fd = open("/proc/self/autogroup", O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return errno == ENOENT ? 1 : -1; /* a kernel without autogroup */
	char buf[16];
	int len = snprintf(buf, sizeof(buf), "%d", nice);
	ssize_t w = write(fd, buf, (size_t)len);
	int e = errno;
	close(fd);
	errno = e;
	return w == len ? 0 : -1;
}

void argus_worker_free(struct argus_worker *w)
{
	if (!w)
		return;
	argus_worker_stop(w);
	while (w->head) {
		struct msg *m = w->head;
		w->head = m->next;
		free(m);
	}
	pthread_mutex_destroy(&w->mu);
	pthread_cond_destroy(&w->cv);
	argus_hmap_free(&w->taken);
	argus_hmap_free(&w->fav);
	free(w->kept);
	free(w);
}
