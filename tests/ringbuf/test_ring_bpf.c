/*
 * Kernel BPF ring buffers, live: a real BPF_MAP_TYPE_RINGBUF filled by a tiny
 * socket-filter program run with BPF_PROG_TEST_RUN. The program copies the
 * test packet's payload (an argus_event, or a record of another size) into
 * the ring, as kext's programs do with bpf_ringbuf_output.
 */
#include <errno.h>
#include <linux/bpf.h>
#include <poll.h>
#include <unistd.h>

#include <bpf/bpf.h>

#include "ringbuf.h"
#include "test.h"

#define RB_SIZE (64 * 1024)

#define INSN(c, d, s, o, i)                                                                        \
	((struct bpf_insn){.code = (c), .dst_reg = (d), .src_reg = (s), .off = (o), .imm = (i)})

/* r6 = ctx; bpf_skb_load_bytes(ctx, 0, fp-128, size);
 * bpf_ringbuf_output(map, fp-128, size, 0); return 0 */
static int load_prog(int map_fd, int size)
{
	struct bpf_insn p[] = {
	    INSN(BPF_ALU64 | BPF_MOV | BPF_X, 6, 1, 0, 0),
	    INSN(BPF_ALU64 | BPF_MOV | BPF_X, 1, 6, 0, 0),
	    INSN(BPF_ALU64 | BPF_MOV | BPF_K, 2, 0, 0, 0),
	    INSN(BPF_ALU64 | BPF_MOV | BPF_X, 3, 10, 0, 0),
	    INSN(BPF_ALU64 | BPF_ADD | BPF_K, 3, 0, 0, -128),
	    INSN(BPF_ALU64 | BPF_MOV | BPF_K, 4, 0, 0, size),
	    INSN(BPF_JMP | BPF_CALL, 0, 0, 0, BPF_FUNC_skb_load_bytes),
	    INSN(BPF_JMP | BPF_JNE | BPF_K, 0, 0, 7, 0),
	    INSN(BPF_LD | BPF_DW | BPF_IMM, 1, BPF_PSEUDO_MAP_FD, 0, map_fd),
	    INSN(0, 0, 0, 0, 0),
	    INSN(BPF_ALU64 | BPF_MOV | BPF_X, 2, 10, 0, 0),
	    INSN(BPF_ALU64 | BPF_ADD | BPF_K, 2, 0, 0, -128),
	    INSN(BPF_ALU64 | BPF_MOV | BPF_K, 3, 0, 0, size),
	    INSN(BPF_ALU64 | BPF_MOV | BPF_K, 4, 0, 0, 0),
	    INSN(BPF_JMP | BPF_CALL, 0, 0, 0, BPF_FUNC_ringbuf_output),
	    INSN(BPF_ALU64 | BPF_MOV | BPF_K, 0, 0, 0, 0),
	    INSN(BPF_JMP | BPF_EXIT, 0, 0, 0, 0),
	};
	char log[4096] = "";
	LIBBPF_OPTS(bpf_prog_load_opts, o, .log_buf = log, .log_size = sizeof(log), .log_level = 1);
	int fd = bpf_prog_load(BPF_PROG_TYPE_SOCKET_FILTER, "argus_rb_test", "GPL", p,
	                       sizeof(p) / sizeof(p[0]), &o);
	if (fd < 0)
		fprintf(stderr, "verifier: %s\n", log);
	return fd;
}

/* Run the program once with `ev` as the packet payload (after 14 bytes of
 * Ethernet header, which the socket-filter test run strips). */
static int emit(int prog, const void *rec, size_t len)
{
	unsigned char pkt[14 + 128] = {0};
	memcpy(pkt + 14, rec, len);
	LIBBPF_OPTS(bpf_test_run_opts, t, .data_in = pkt, .data_size_in = sizeof(pkt));
	return bpf_prog_test_run_opts(prog, &t);
}

struct fixture {
	int map, prog64, prog40, prog128, prog96;
};

static void setup(struct fixture *f)
{
	if (geteuid() != 0)
		SKIP("needs root for BPF maps and programs");
	f->map = bpf_map_create(BPF_MAP_TYPE_RINGBUF, "argus_rb_test", 0, 0, RB_SIZE, NULL);
	if (f->map < 0)
		SKIP("kernel refused a BPF ring buffer: %s", strerror(errno));
	f->prog64 = load_prog(f->map, 64);
	f->prog40 = load_prog(f->map, 40);
	f->prog128 = load_prog(f->map, 128); /* two records in one entry */
	f->prog96 = load_prog(f->map, 96);
	ASSERT(f->prog64 >= 0 && f->prog40 >= 0 && f->prog128 >= 0 && f->prog96 >= 0);
}

static void teardown(struct fixture *f)
{
	close(f->prog64);
	close(f->prog40);
	close(f->prog128);
	close(f->prog96);
	close(f->map);
}

static uint64_t fake_drops(void *arg, unsigned cpu)
{
	return *(uint64_t *)arg + cpu;
}

TEST(kernel_records_read_in_order)
{
	struct fixture f;
	setup(&f);
	struct argus_ring *r;
	ASSERT_EQ(argus_ring_open_bpf(&r, f.map, 3, NULL, NULL), 0);
	ASSERT_EQ(argus_ring_cpu(r), 3);
	for (uint32_t i = 0; i < 100; i++) {
		struct argus_event ev = {
		    .ts = 500 + i, .tid = i, .type = ARGUS_EV_FUTEX_WAIT, .cpu = 3};
		ev.futex.uaddr = 0xabc000 + i;
		ASSERT_EQ(emit(f.prog64, &ev, sizeof(ev)), 0);
	}
	uint64_t used, size;
	argus_ring_fill(r, &used, &size);
	ASSERT_U64_EQ(size, RB_SIZE);
	ASSERT_U64_EQ(used, 100 * (64 + 8)); /* 8-byte record headers */
	struct argus_event out[128];
	ASSERT_EQ(argus_ring_read(r, out, 128), 100);
	for (uint32_t i = 0; i < 100; i++) {
		ASSERT_U64_EQ(out[i].ts, 500 + i);
		ASSERT_U64_EQ(out[i].futex.uaddr, 0xabc000 + i);
	}
	argus_ring_fill(r, &used, &size);
	ASSERT_U64_EQ(used, 0);
	ASSERT_EQ(argus_ring_read(r, out, 128), 0);
	argus_ring_close(r);
	teardown(&f);
}

TEST(read_is_bounded_and_keeps_the_rest)
{
	struct fixture f;
	setup(&f);
	struct argus_ring *r;
	ASSERT_EQ(argus_ring_open_bpf(&r, f.map, 0, NULL, NULL), 0);
	for (uint32_t i = 0; i < 10; i++) {
		struct argus_event ev = {.ts = 1 + i, .type = ARGUS_EV_SCHED_SWITCH};
		ASSERT_EQ(emit(f.prog64, &ev, sizeof(ev)), 0);
	}
	struct argus_event out[10];
	ASSERT_EQ(argus_ring_read(r, out, 4), 4);
	ASSERT_U64_EQ(out[3].ts, 4);
	ASSERT_EQ(argus_ring_read(r, out, 10), 6);
	ASSERT_U64_EQ(out[0].ts, 5);
	argus_ring_close(r);
	teardown(&f);
}

TEST(malformed_records_counted_and_skipped)
{
	struct fixture f;
	setup(&f);
	struct argus_ring *r;
	ASSERT_EQ(argus_ring_open_bpf(&r, f.map, 0, NULL, NULL), 0);
	struct argus_event a = {.ts = 10, .type = ARGUS_EV_SCHED_SWITCH};
	struct argus_event b = {.ts = 20, .type = ARGUS_EV_SCHED_SWITCH};
	ASSERT_EQ(emit(f.prog64, &a, sizeof(a)), 0);
	ASSERT_EQ(emit(f.prog40, &a, 40), 0);
	ASSERT_EQ(emit(f.prog64, &b, sizeof(b)), 0);
	struct argus_event out[4];
	ASSERT_EQ(argus_ring_read(r, out, 4), 2);
	ASSERT_U64_EQ(out[0].ts, 10);
	ASSERT_U64_EQ(out[1].ts, 20);
	ASSERT_U64_EQ(argus_ring_malformed(r), 1);
	argus_ring_close(r);
	teardown(&f);
}

/* kext writes a blocked receive's SYS_ENTER and its SCHED_SWITCH as one
 * entry: they come out as two records, in order, even when the reader's
 * buffer has room for only one of them. */
TEST(multi_record_entries_split_and_never_lost)
{
	struct fixture f;
	setup(&f);
	struct argus_ring *r;
	ASSERT_EQ(argus_ring_open_bpf(&r, f.map, 0, NULL, NULL), 0);
	struct argus_event pair[2] = {{.ts = 10, .type = ARGUS_EV_SYS_ENTER},
	                              {.ts = 10, .type = ARGUS_EV_SCHED_SWITCH}};
	struct argus_event one = {.ts = 20, .type = ARGUS_EV_SCHED_WAKEUP};
	ASSERT_EQ(emit(f.prog128, pair, sizeof(pair)), 0);
	ASSERT_EQ(emit(f.prog64, &one, sizeof(one)), 0);
	ASSERT_EQ(emit(f.prog96, pair, 96), 0); /* 1.5 records: malformed */
	ASSERT_EQ(emit(f.prog128, pair, sizeof(pair)), 0);
	struct argus_event out[8];
	ASSERT_EQ(argus_ring_read(r, out, 1), 1);
	ASSERT_EQ(out[0].type, ARGUS_EV_SYS_ENTER);
	ASSERT_EQ(argus_ring_read(r, out, 1), 1); /* the rest of the entry */
	ASSERT_EQ(out[0].type, ARGUS_EV_SCHED_SWITCH);
	ASSERT_EQ(argus_ring_read(r, out, 2), 2);
	ASSERT_U64_EQ(out[0].ts, 20);
	ASSERT_EQ(out[1].type, ARGUS_EV_SYS_ENTER);
	ASSERT_EQ(argus_ring_read(r, out, 8), 1);
	ASSERT_EQ(out[0].type, ARGUS_EV_SCHED_SWITCH);
	ASSERT_EQ(argus_ring_read(r, out, 8), 0);
	ASSERT_U64_EQ(argus_ring_malformed(r), 1);
	argus_ring_close(r);
	teardown(&f);
}

TEST(wait_fd_turns_readable_on_data)
{
	struct fixture f;
	setup(&f);
	struct argus_ring *r;
	ASSERT_EQ(argus_ring_open_bpf(&r, f.map, 0, NULL, NULL), 0);
	struct pollfd pfd = {.fd = argus_ring_wait_fd(r), .events = POLLIN};
	ASSERT(pfd.fd >= 0);
	ASSERT_EQ(poll(&pfd, 1, 0), 0);
	struct argus_event ev = {.ts = 1, .type = ARGUS_EV_SCHED_SWITCH};
	ASSERT_EQ(emit(f.prog64, &ev, sizeof(ev)), 0);
	ASSERT_EQ(poll(&pfd, 1, 1000), 1);
	argus_ring_close(r);
	teardown(&f);
}

TEST(drops_come_from_the_kernel_side_counter)
{
	struct fixture f;
	setup(&f);
	struct argus_ring *r;
	uint64_t base = 40;
	ASSERT_EQ(argus_ring_open_bpf(&r, f.map, 2, fake_drops, &base), 0);
	ASSERT_U64_EQ(argus_ring_drops(r), 42);
	argus_ring_close(r);
	teardown(&f);
}

TEST(open_refuses_a_map_that_is_not_a_ring)
{
	if (geteuid() != 0)
		SKIP("needs root for BPF maps");
	int m = bpf_map_create(BPF_MAP_TYPE_ARRAY, "argus_arr", 4, 8, 1, NULL);
	ASSERT(m >= 0);
	struct argus_ring *r;
	ASSERT_EQ(argus_ring_open_bpf(&r, m, 0, NULL, NULL), -EINVAL);
	ASSERT(argus_ring_open_bpf(&r, 9999, 0, NULL, NULL) < 0);
	close(m);
}

TEST_MAIN(TEST_ENTRY(kernel_records_read_in_order), TEST_ENTRY(read_is_bounded_and_keeps_the_rest),
          TEST_ENTRY(malformed_records_counted_and_skipped),
          TEST_ENTRY(multi_record_entries_split_and_never_lost),
          TEST_ENTRY(wait_fd_turns_readable_on_data),
          TEST_ENTRY(drops_come_from_the_kernel_side_counter),
          TEST_ENTRY(open_refuses_a_map_that_is_not_a_ring))
