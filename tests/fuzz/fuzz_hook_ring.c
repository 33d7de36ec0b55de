/*
 * libFuzzer target: what a hooked application writes into its shared-memory
 * ring, as the daemon consumes it. The application is not trusted: it
 * writes the slots and may scribble over the ring's header (the ck_ring
 * indices, size and mask, the drop counter) at any time.
 *
 * Input: byte 0 = what the app does besides writing records (bit 0: patch
 * the ck_ring words with the next 16 bytes, bit 1: patch the drop and
 * written counters with the next 16 bytes, bit 2: run the records through
 * a diagnosis session), then 64-byte records written through the producer.
 * The daemon's side reads the ring as the daemon does (argus_ring_read,
 * argus_ring_drops, argus_ring_fill), guards the records for the ring's
 * owner (argus_hook_guard_apply) and checks that every record now speaks
 * for the owner alone; with bit 2 they are merged with a second process's
 * records (the victim) into a session with graph, trigger and diagnosis,
 * which must not crash and must not report a stall of the victim or name
 * it in a diagnosis. Corpus: tests/fuzz/corpus/hook/.
 */
#include <ck_ring.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "session.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define CAP      64   /* ring slots */
#define HDR      4096 /* header page (docs/daemon.md "Rings") */
#define CK_OFF   64   /* struct ck_ring in the header */
#define OWNER    100u /* the hooked process; its threads 100..103 */
#define VICTIM   200u /* another process; threads 200, 201 live */
#define SEC      1000000000ull
#define NOW      (20 * SEC)
#define MAX_RECS 512

#define CHECK(c)                                                                                   \
	do {                                                                                       \
		if (!(c)) {                                                                        \
			fprintf(stderr, "fuzz_hook_ring: %s:%d: %s\n", __FILE__, __LINE__, #c);    \
			abort();                                                                   \
		}                                                                                  \
	} while (0)

static bool tid_ok(void *arg, uint32_t pid, uint32_t tid)
{
	(void)arg;
	if (tid >= OWNER && tid <= OWNER + 3)
		return pid == OWNER;
	/* live threads of other processes (the victim, init) */
	return !(tid == VICTIM || tid == VICTIM + 1 || tid == 1);
}

/* What the guard promises about each record it lets through. */
static void check_guarded(const struct argus_event *e)
{
	CHECK(argus_hook_type_allowed(e->type));
	CHECK(e->pid == OWNER);
	CHECK(e->tid != VICTIM && e->tid != VICTIM + 1 && e->tid != 1);
	CHECK((e->flags & ~(ARGUS_F_HOOK | ARGUS_F_TRUNC)) == 0 && (e->flags & ARGUS_F_HOOK));
	CHECK(e->ts <= NOW + SEC);
	CHECK(e->_rsvd == 0);
	switch (e->type) {
	case ARGUS_EV_DBUS_SEND:
	case ARGUS_EV_DBUS_RECV:
		CHECK(e->dbus.member_str == 0 && e->dbus.dest_str == 0);
		break;
	case ARGUS_EV_LOOP_ITER_BEGIN:
	case ARGUS_EV_LOOP_ITER_END:
	case ARGUS_EV_DISPATCH_BEGIN:
	case ARGUS_EV_DISPATCH_END:
		CHECK(e->loop.name_str == 0);
		break;
	case ARGUS_EV_DROP:
		CHECK(e->drop.source == ARGUS_DROP_HOOK_RING && e->drop.source_id == 7);
		break;
	default:
		break;
	}
}

/* The victim: a GUI app with a UI thread that reads input and goes back to
 * its loop at once, and a worker; it never stalls. */
static size_t victim_records(struct argus_event *out)
{
	size_t n = 0;
	struct argus_event e;
	for (unsigned t = 0; t < 2; t++) {
		memset(&e, 0, sizeof(e));
		e.ts = 1 * SEC + t;
		e.pid = VICTIM;
		e.tid = VICTIM + t;
		e.type = ARGUS_EV_COMM;
		snprintf(e.comm.comm, sizeof(e.comm.comm), "%s", t ? "victim-worker" : "victim");
		e.comm.is_process = !t;
		out[n++] = e;
	}
	for (unsigned i = 0; i < 40; i++) {
		uint64_t ts = 2 * SEC + i * (SEC / 4);
		memset(&e, 0, sizeof(e));
		e.ts = ts;
		e.pid = e.tid = VICTIM;
		e.type = ARGUS_EV_UI_INPUT;
		e.ui.kind = ARGUS_UI_KEY;
		e.ui.obj = 0xd15;
		out[n++] = e;
		memset(&e, 0, sizeof(e));
		e.ts = ts + 1000;
		e.pid = e.tid = VICTIM;
		e.type = ARGUS_EV_LOOP_ITER_BEGIN;
		e.loop.context = 0xc0;
		out[n++] = e;
		e.ts = ts + 2000;
		e.type = ARGUS_EV_LOOP_ITER_END;
		out[n++] = e;
		memset(&e, 0, sizeof(e));
		e.ts = ts + 3000;
		e.pid = VICTIM;
		e.tid = VICTIM + 1;
		e.type = ARGUS_EV_COND_SIGNAL;
		e.sync.obj = 0xabc;
		out[n++] = e;
	}
	return n;
}

static void check_diagnosis(void *arg, const struct argus_diagnosis *d)
{
	(void)arg;
	CHECK(d->stall.pid != VICTIM);
	CHECK(d->root.v.pid != VICTIM);
	for (uint32_t i = 0; i < d->ncandidates && i < ARGUS_DIAG_CANDIDATES; i++)
		CHECK(d->candidates[i].v.pid != VICTIM);
	CHECK(!strstr(d->summary, "victim"));
}

static void check_stall(void *arg, const struct argus_stall *s)
{
	(void)arg;
	CHECK(s->pid != VICTIM);
}

static void run_session(const struct argus_event *hook, size_t nhook)
{
	static struct argus_event vic[256], out[1024];
	size_t nvic = victim_records(vic);
	struct argus_merge *m;
	if (argus_merge_new(&m, 2, 50000000ull))
		return;
	argus_merge_push(m, 0, vic, nvic, NOW);
	argus_merge_push(m, 1, hook, nhook, NOW);
	struct argus_session_opts o;
	argus_session_opts_default(&o);
	struct argus_session *s;
	if (argus_session_new(&s, &o)) {
		argus_merge_free(m);
		return;
	}
	struct argus_session_sink k = {
	    .stall = check_stall, .diagnosis = check_diagnosis, .stall_end = check_stall};
	argus_session_add_sink(s, &k);
	struct argus_sink in = argus_session_sink(s);
	size_t n;
	while ((n = argus_merge_drain(m, out, 1024)) > 0)
		in.events(in.arg, out, n);
	argus_session_tick(s, NOW + 10 * SEC);
	argus_session_end(s);
	argus_session_free(s);
	argus_merge_free(m);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	uint8_t mode = data[0];
	data++, size--;
	uint8_t patch_ck[16] = {0}, patch_cnt[16] = {0};
	if (mode & 1) {
		size_t k = size < 16 ? size : 16;
		memcpy(patch_ck, data, k);
		data += k, size -= k;
	}
	if (mode & 2) {
		size_t k = size < 16 ? size : 16;
		memcpy(patch_cnt, data, k);
		data += k, size -= k;
	}
	/* One ring for as long as the app leaves its header alone (the reader
	 * drains it every time); a scribbled one is replaced afterwards. */
	static struct argus_ring *cons, *app;
	static uint8_t *map;
	if (!cons) {
		int fd;
		if (argus_ring_create_shm(&cons, CAP, &fd))
			return 0;
		if (argus_ring_attach_shm(&app, fd)) {
			argus_ring_close(cons);
			cons = NULL;
			close(fd);
			return 0;
		}
		/* the app's own view of the whole file, to scribble on */
		map = mmap(NULL, HDR + CAP * 64, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
		close(fd);
		CHECK(map != MAP_FAILED);
	}
	size_t nrec = size / 64;
	for (size_t i = 0; i < nrec && i < 2 * CAP; i++) {
		struct argus_event e;
		memcpy(&e, data + i * 64, 64);
		argus_ring_write(app, &e); /* a full ring counts a drop */
	}
	struct ck_ring *ck = (struct ck_ring *)(void *)(map + CK_OFF);
	if (mode & 1) {
		uint32_t w[4];
		memcpy(w, patch_ck, sizeof(w));
		ck->p_tail = w[0];
		ck->c_head = w[1];
		ck->size = w[2];
		ck->mask = w[3];
	}
	if (mode & 2)
		memcpy(map + 16, patch_cnt, 16); /* drop and written counters */

	/* the daemon's side */
	static struct argus_event got[MAX_RECS];
	size_t ngot = 0, n;
	struct argus_hook_guard g = {.pid = OWNER, .source_id = 7, .tid_ok = tid_ok};
	for (unsigned round = 0; round < 8 && ngot < MAX_RECS; round++) {
		size_t want = MAX_RECS - ngot < 64 ? MAX_RECS - ngot : 64;
		if (!(n = argus_ring_read(cons, got + ngot, want)))
			break;
		CHECK(n <= want);
		n = argus_hook_guard_apply(&g, got + ngot, n, NOW);
		for (size_t i = 0; i < n; i++)
			check_guarded(&got[ngot + i]);
		ngot += n;
	}
	uint64_t used, cap;
	argus_ring_fill(cons, &used, &cap);
	CHECK(used <= cap);
	volatile uint64_t drops = argus_ring_drops(cons);
	(void)drops;
	if (mode & 4)
		run_session(got, ngot);
	if (mode & 1 || argus_ring_read(cons, got, 1)) {
		munmap(map, HDR + CAP * 64);
		argus_ring_close(app);
		argus_ring_close(cons);
		cons = app = NULL;
	}
	return 0;
}
