/*
 * test_kext_shed_live.c - shedding under overload (label "live";
 * kext/appset.bpf.h, docs/kext.md "Shedding"): with nobody reading, a
 * process outside the app set floods a one-page ring, then a member of the
 * app set runs on the same CPU. Past the shedding fill the flood's records
 * are shed (counted, and reported as ring drops), so the member's records
 * still find room; without shedding the flood takes the whole ring. And
 * shedding ends once the reader has made room, also on a CPU where nothing
 * but the flood runs (the default capture decides it per CPU at its stage's
 * write-outs, and a shed flood writes none out).
 */
#include "collect.h"

static void pingpong(void *arg)
{
	(void)arg;
	int p[2];
	char b = 0;

	pin_cpu0();
	if (pipe(p))
		_exit(1);
	for (int i = 0; i < 3000; i++)
		if (write(p[1], &b, 1) != 1 || read(p[0], &b, 1) != 1)
			_exit(1);
}

struct outcome {
	size_t flood, member; /* records of each in the ring */
	uint64_t drops, shed, reported;
};

static void run(bool shed, struct outcome *o)
{
	struct argus_kext_opts opts = {.pid_filter = true,
	                               .no_samples = true,
	                               .ring_bytes = 4096,
	                               .syscalls = true,
	                               .shed_bytes = 1024,
	                               .no_shed = !shed};
	struct collector c;
	int status;

	memset(o, 0, sizeof(*o));
	collector_start(&c, &opts);
	struct gated_child flood = spawn_gated(pingpong, NULL);
	trace_and_go(&c, &flood);
	ASSERT(waitpid(flood.pid, &status, 0) == flood.pid && WIFEXITED(status) &&
	       WEXITSTATUS(status) == 0);
	struct gated_child member = spawn_gated(pingpong, NULL);
	ASSERT(argus_kext_appset_add(c.k, member.pid) == 0);
	trace_and_go(&c, &member);
	ASSERT(waitpid(member.pid, &status, 0) == member.pid && WIFEXITED(status) &&
	       WEXITSTATUS(status) == 0);
	collector_finish(&c);
	for (size_t i = 0; i < c.n; i++) {
		if (c.ev[i].pid == (uint32_t)flood.pid)
			o->flood++;
		else if (c.ev[i].pid == (uint32_t)member.pid)
			o->member++;
	}
	for (unsigned cpu = 0; cpu < argus_kext_ncpus(c.k); cpu++)
		o->drops += argus_kext_ring_drops(c.k, cpu);
	o->shed = argus_kext_ring_shed(c.k);
	for (size_t i = 0; i < c.ndrops; i++)
		if (c.drops[i].drop.source == ARGUS_DROP_KERNEL_RING)
			o->reported += c.drops[i].drop.count;
	struct argus_kext_stats st;
	argus_kext_get_stats(c.k, &st);
	ASSERT_U64_EQ(st.ring_shed, o->shed);
	fprintf(stderr,
	        "shed %s: flood %zu records kept, member %zu; ring drops %" PRIu64
	        " (shed %" PRIu64 "), reported %" PRIu64 "\n",
	        shed ? "on" : "off", o->flood, o->member, o->drops, o->shed, o->reported);
	collector_free(&c);
}

TEST(a_member_of_the_app_set_keeps_room_in_a_flooded_ring)
{
	struct outcome o;

	require_live();
	run(true, &o);
	ASSERT_MSG(o.shed > 0, "the flood was never shed (%" PRIu64 " drops)", o.drops);
	ASSERT(o.shed <= o.drops);
	ASSERT_U64_EQ(o.reported, o.drops); /* shed records are reported as lost */
	/* a 4 KiB ring shedding past 1 KiB: the member has the other 3 KiB */
	ASSERT_MSG(o.member >= 20, "the member kept %zu records after the flood", o.member);
	ASSERT_MSG(o.flood < o.member, "flood %zu records, member %zu", o.flood, o.member);
}

TEST(without_shedding_the_flood_takes_the_whole_ring)
{
	struct outcome o;

	require_live();
	run(false, &o);
	ASSERT_U64_EQ(o.shed, 0);
	ASSERT(o.drops > 0);
	ASSERT_U64_EQ(o.reported, o.drops);
	/* well under the 20 it keeps with shedding (make test saw 4 once: the
	 * flood's ring had a moment's room) */
	ASSERT_MSG(o.member < 10, "the member kept %zu records in a full ring", o.member);
}

struct phases {
	int done_fd; /* the flood writes a byte here after its first phase */
	int go_fd;   /* and reads one here before its second */
};

#define HANDOFFS 3000

static void two_floods(void *arg)
{
	struct phases *ph = arg;
	char b = 0;

	pin_cpu0(); /* the two processes of each phase share CPU 0 */
	pipe_handoffs(HANDOFFS);
	if (write(ph->done_fd, &b, 1) != 1 || read(ph->go_fd, &b, 1) != 1)
		_exit(1);
	pipe_handoffs(HANDOFFS);
}

TEST(shedding_ends_once_the_reader_has_made_room)
{
	/* the first phase fills the ring past shed_bytes with nobody
	 * reading; the reader then takes everything and reads every 2 ms
	 * (wait_child), far less than shed_bytes a time */
	struct argus_kext_opts opts = {.pid_filter = true,
	                               .no_samples = true,
	                               .ring_bytes = 1u << 20,
	                               .shed_bytes = 256u << 10};
	int done[2], go[2], status;
	struct collector c;
	char b = 'g';

	require_live();
	ASSERT(pipe(done) == 0 && pipe(go) == 0);
	struct phases ph = {.done_fd = done[1], .go_fd = go[0]};
	collector_start(&c, &opts);
	struct gated_child flood = spawn_gated(two_floods, &ph);
	trace_and_go(&c, &flood);
	ASSERT(read(done[0], &b, 1) == 1);
	uint64_t shed_first = argus_kext_ring_shed(c.k);
	collector_drain(&c);
	size_t first = c.n;
	ASSERT(write(go[1], &b, 1) == 1);
	status = wait_child(&c, flood.pid);
	ASSERT(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	collector_finish(&c);
	uint64_t shed = argus_kext_ring_shed(c.k);
	/* the records read after the first phase's were written in the second
	 * (but for a stage's worth the CPU still held) */
	fprintf(stderr,
	        "first phase: %zu records read, %" PRIu64 " shed; at the end %zu read, %" PRIu64
	        " shed\n",
	        first, shed_first, c.n, shed);
	ASSERT_MSG(shed_first > 0, "the first phase shed nothing: the test shows nothing");
	ASSERT_MSG(c.n - first >= first / 2,
	           "the second phase kept %zu records, the first %zu (%" PRIu64 " shed in all)",
	           c.n - first, first, shed);
	collector_free(&c);
}

TEST_MAIN(TEST_ENTRY(a_member_of_the_app_set_keeps_room_in_a_flooded_ring),
          TEST_ENTRY(without_shedding_the_flood_takes_the_whole_ring),
          TEST_ENTRY(shedding_ends_once_the_reader_has_made_room))
