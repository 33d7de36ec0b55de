/*
 * test_kext_irq_live.c - interrupt records (label "live"; kext/proc.bpf.c,
 * docs/kext.md "Interrupts"): the entries write nothing; the time of the
 * interrupts that cut into a traced thread is added up per CPU and written
 * at an outermost exit once it reaches 50 us, so a thread that takes
 * thousands of short softirqs gets few records, whose times add up to no
 * more than the thread ran.
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include "collect.h"

#define SENDS 20000

/* The traced child: UDP datagrams to itself over loopback; each is
 * received in the NET_RX softirq, run in the sender's context. */
static void udp_loop_main(void *arg)
{
	(void)arg;
	struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	socklen_t al = sizeof(a);
	int s = socket(AF_INET, SOCK_DGRAM, 0);
	char buf[64] = {0};

	if (s < 0 || bind(s, (struct sockaddr *)&a, sizeof(a)) ||
	    getsockname(s, (struct sockaddr *)&a, &al))
		_exit(1);
	for (int i = 0; i < SENDS; i++) {
		if (sendto(s, buf, sizeof(buf), 0, (struct sockaddr *)&a, sizeof(a)) < 0)
			_exit(1);
		if (recv(s, buf, sizeof(buf), MSG_DONTWAIT) < 0)
			_exit(1);
	}
	close(s);
}

TEST(interrupt_time_written_in_sums)
{
	struct argus_kext_opts o = {.pid_filter = true, .no_samples = true};
	struct collector c;

	require_live();
	uint64_t t0 = mono_ns();
	struct gated_child g = collect_child(&c, &o, udp_loop_main, NULL);
	uint64_t ran = mono_ns() - t0;

	size_t entries = 0, exits = 0, short_exits = 0;
	uint64_t sum = 0;
	for (size_t i = 0; i < c.n; i++) {
		const struct argus_event *e = &c.ev[i];

		if (e->type == ARGUS_EV_IRQ_ENTRY || e->type == ARGUS_EV_SOFTIRQ_ENTRY)
			entries++;
		if ((e->type != ARGUS_EV_IRQ_EXIT && e->type != ARGUS_EV_SOFTIRQ_EXIT) ||
		    e->tid != (uint32_t)g.pid)
			continue;
		exits++;
		sum += e->irq.dur_ns;
		ASSERT(e->irq.dur_ns > 0);
		/* shorter only when a timer's fire came first */
		if (e->irq.dur_ns < 50000)
			short_exits++;
	}
	fprintf(stderr, "irq exits %zu, short %zu, %.2f ms of %.1f ms\n", exits, short_exits,
	        sum / 1e6, ran / 1e6);
	ASSERT_EQ(entries, 0);
	ASSERT_MSG(exits > 0, "no interrupt time written for %d loopback datagrams", SENDS);
	ASSERT(exits < SENDS / 10);
	ASSERT(short_exits * 10 <= exits);
	ASSERT(sum < ran);
	collector_free(&c);
}

TEST_MAIN(TEST_ENTRY(interrupt_time_written_in_sums))
