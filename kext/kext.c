/*
 * kext.c - load, configure and attach the eBPF tracer (tracer.bpf.c), and
 * account for what it loses. Failures say what is missing and how to fix it.
 */
#include <errno.h>
#include <linux/capability.h>
#include <linux/magic.h>
#include <linux/perf_event.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>

#include "kext_priv.h"
#include "tracer.h"
#include "tracer.skel.h"
#include "procmaps.h"
#include "unwind.h"

#define DEFAULT_RING_BYTES (4u << 20)
#define DEFAULT_SAMPLE_HZ  49

static int libbpf_quiet(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	/* libbpf explains verifier failures at length: only on request */
	if (level == LIBBPF_DEBUG || !getenv("ARGUS_BPF_DEBUG"))
		return 0;
	return vfprintf(stderr, fmt, ap);
}

static int fail(char *err, size_t errlen, int status, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static int fail(char *err, size_t errlen, int status, const char *fmt, ...)
{
	va_list ap;

	if (err && errlen) {
		va_start(ap, fmt);
		vsnprintf(err, errlen, fmt, ap);
		va_end(ap);
	}
	return status;
}

/* Root, or CAP_BPF + CAP_PERFMON, or CAP_SYS_ADMIN (older kernels). */
static bool have_privileges(void)
{
	struct __user_cap_header_struct hdr = {.version = _LINUX_CAPABILITY_VERSION_3};
	struct __user_cap_data_struct data[2] = {0};

	if (syscall(SYS_capget, &hdr, data) != 0)
		return geteuid() == 0;
	uint64_t eff = (uint64_t)data[1].effective << 32 | data[0].effective;
	bool sys_admin = eff & (1ull << 21);
	bool bpf = eff & (1ull << 39), perfmon = eff & (1ull << 38);
	return sys_admin || (bpf && perfmon);
}

/* Which syscalls the kernel side looks at, and how: the kclass and karg
 * columns of this machine's table, by its own numbers. */
static void set_syscalls(struct tracer_bpf *skel)
{
#define SET_ROW_(name, nr, kclass, karg, wait, named)                                              \
	skel->rodata->sys_class[nr] = SC_##kclass;                                                 \
	skel->rodata->sys_arg[nr] = SA_##karg;
	ARGUS_SYSCALLS_NATIVE(SET_ROW_)
#undef SET_ROW_
}

static bool power_of_two(uint32_t v)
{
	return v && !(v & (v - 1));
}

static int set_options(struct argus_kext *k, const struct argus_kext_opts *o, char *err,
                       size_t errlen)
{
	struct tracer_bpf *skel = k->skel;
	uint32_t ring = o->ring_bytes ? o->ring_bytes : DEFAULT_RING_BYTES;
	long page = sysconf(_SC_PAGESIZE);

	if (!power_of_two(ring) || ring < (uint32_t)page)
		return fail(err, errlen, ARGUS_KEXT_EINVAL,
		            "ring size %u: must be a power of two of at least %ld bytes", ring,
		            page);
	skel->rodata->self_tgid = getpid();
	skel->rodata->filter_pids = o->npids > 0 || o->pid_filter;
	skel->rodata->follow_children = !o->no_children;
	skel->rodata->wake_bytes = o->wake_bytes ? o->wake_bytes : ring / 4;
	skel->rodata->trace_irqs = !o->no_irqs;
	skel->rodata->trace_timers = !o->no_timers;
	skel->rodata->wait_stacks = !o->no_wait_stacks;
	skel->rodata->recv_enter = !o->no_recv_enter;
	skel->rodata->per_call = o->syscalls;
	skel->rodata->meter_tasks = o->meter;
	if (o->ustack_bytes && (o->ustack_bytes < 256 || o->ustack_bytes > TRACER_USTACK_BYTES_MAX))
		return fail(err, errlen, ARGUS_KEXT_EINVAL,
		            "full stacks of %u bytes: must be 256 to %d", o->ustack_bytes,
		            TRACER_USTACK_BYTES_MAX);
	skel->rodata->ustack_bytes = o->ustack_bytes ? o->ustack_bytes : TRACER_USTACK_BYTES;
	skel->rodata->ustack_all = o->full_stacks_all;
	skel->rodata->shed_bytes = o->no_shed ? 0 : o->shed_bytes ? o->shed_bytes : ring / 2;
	if (o->comm) {
		size_t n = strlen(o->comm);

		if (n == 0 || n >= ARGUS_COMM_LEN)
			return fail(err, errlen, ARGUS_KEXT_EINVAL,
			            "--comm '%s': a process name has 1 to %d characters", o->comm,
			            ARGUS_COMM_LEN - 1);
		skel->rodata->filter_comm = true;
		memcpy((char *)skel->rodata->comm_filter, o->comm, n);
	}
	if (o->cgroup) {
		struct stat st;
		struct statfs sfs;

		/* a cgroup v2 directory's inode number is its cgroup id */
		if (stat(o->cgroup, &st) != 0 || !S_ISDIR(st.st_mode))
			return fail(err, errlen, ARGUS_KEXT_EINVAL,
			            "--cgroup %s: not a cgroup directory (%s)", o->cgroup,
			            strerror(errno ? errno : ENOTDIR));
		if (statfs(o->cgroup, &sfs) != 0 || sfs.f_type != CGROUP2_SUPER_MAGIC)
			return fail(err, errlen, ARGUS_KEXT_EINVAL,
			            "--cgroup %s: not in a cgroup v2 hierarchy (mount cgroup2)",
			            o->cgroup);
		skel->rodata->filter_cgroup = st.st_ino;
	}
	set_syscalls(skel);

	k->ncpus = libbpf_num_possible_cpus();
	if ((int)k->ncpus <= 0)
		return fail(err, errlen, ARGUS_KEXT_EIO, "cannot count the CPUs");
	if (k->ncpus > TRACER_CPUS_MAX) /* losses must be counted on every CPU */
		return fail(err, errlen, ARGUS_KEXT_ENOSUPPORT,
		            "%u possible CPUs: argus counts losses on at most %u", k->ncpus,
		            TRACER_CPUS_MAX);
	bpf_map__set_max_entries(skel->maps.rings, k->ncpus);
	k->ring_fds = calloc(k->ncpus, sizeof(int));
	k->perf_fds = calloc(k->ncpus, sizeof(int));
	k->perf_links = calloc(k->ncpus, sizeof(*k->perf_links));
	k->drops_reported = calloc(k->ncpus, sizeof(uint64_t));
	if (!k->ring_fds || !k->perf_fds || !k->perf_links || !k->drops_reported)
		return fail(err, errlen, ARGUS_KEXT_ENOMEM, "out of memory");
	for (unsigned c = 0; c < k->ncpus; c++)
		k->ring_fds[c] = k->perf_fds[c] = -1;
	for (unsigned c = 0; c < k->ncpus; c++) {
		k->ring_fds[c] =
		    bpf_map_create(BPF_MAP_TYPE_RINGBUF, "argus_ring", 0, 0, ring, NULL);
		if (k->ring_fds[c] < 0)
			return fail(err, errlen, errno == EPERM ? ARGUS_KEXT_EPRIV : ARGUS_KEXT_EIO,
			            "cannot create the BPF ring buffer of CPU %u: %s", c,
			            strerror(errno));
	}
	if (bpf_map__set_inner_map_fd(skel->maps.rings, k->ring_fds[0]))
		return fail(err, errlen, ARGUS_KEXT_EIO, "cannot set the ring template");
	k->samples = !o->no_samples;
	k->per_call = o->syscalls;
	k->yields_on_demand = o->yields_on_demand;
	k->sample_hz = o->sample_hz ? o->sample_hz : DEFAULT_SAMPLE_HZ;
	return 0;
}

/* Whether the kernel has tracepoint `name` (its btf_trace_ typedef) in
 * vmlinux or in module `module`'s BTF: FUSE may be a module, or absent. */
static bool kernel_has_tracepoint(const char *name, const char *module)
{
	char type[96];
	struct btf *vm = btf__load_vmlinux_btf(), *m;
	bool found;

	if (!vm)
		return false;
	snprintf(type, sizeof(type), "btf_trace_%s", name);
	found = btf__find_by_name_kind(vm, type, BTF_KIND_TYPEDEF) >= 0;
	if (!found && (m = btf__load_module_btf(module, vm)) != NULL) {
		found = btf__find_by_name_kind(m, type, BTF_KIND_TYPEDEF) >= 0;
		btf__free(m);
	}
	btf__free(vm);
	return found;
}

static int load_error(int e, char *err, size_t errlen)
{
	if (e == EPERM || e == EACCES)
		return fail(err, errlen, ARGUS_KEXT_EPRIV,
		            "the kernel refused to load the tracer (%s): run as root, or check "
		            "kernel.unprivileged_bpf_disabled and lockdown",
		            strerror(e));
	if (e == ENOSYS)
		return fail(err, errlen, ARGUS_KEXT_ENOSUPPORT,
		            "this kernel has no BPF (CONFIG_BPF_SYSCALL=y is needed)");
	return fail(err, errlen, ARGUS_KEXT_ENOSUPPORT,
	            "the kernel rejected the tracer (%s): a kernel >= 5.15 with BTF, "
	            "BPF ring buffers and tp_btf is needed (ARGUS_BPF_DEBUG=1 shows why)",
	            strerror(e));
}

int argus_kext_open(struct argus_kext **kp, const struct argus_kext_opts *opts, char *err,
                    size_t errlen)
{
	static const struct argus_kext_opts defaults;
	const struct argus_kext_opts *o = opts ? opts : &defaults;
	const char *btf = o->btf_path ? o->btf_path : "/sys/kernel/btf/vmlinux";
	struct argus_kext *k;
	int rc;

	*kp = NULL;
	if (!have_privileges())
		return fail(err, errlen, ARGUS_KEXT_EPRIV,
		            "tracing needs root or CAP_BPF and CAP_PERFMON: run with sudo, or "
		            "`setcap cap_bpf,cap_perfmon+ep` the argus binary");
	if (access(btf, R_OK) != 0)
		return fail(err, errlen, ARGUS_KEXT_ENOSUPPORT,
		            "kernel BTF %s is missing (%s): use a kernel built with "
		            "CONFIG_DEBUG_INFO_BTF=y",
		            btf, strerror(errno));
	libbpf_set_print(libbpf_quiet);

	k = calloc(1, sizeof(*k));
	if (!k)
		return fail(err, errlen, ARGUS_KEXT_ENOMEM, "out of memory");
	pthread_mutex_init(&k->full_mu, NULL);
	pthread_mutex_init(&k->yield_mu, NULL);
	LIBBPF_OPTS(bpf_object_open_opts, oo, .btf_custom_path = o->btf_path);
	k->skel = tracer_bpf__open_opts(&oo);
	if (!k->skel) {
		rc = fail(err, errlen, ARGUS_KEXT_ENOSUPPORT, "cannot open the BPF tracer: %s",
		          strerror(errno));
		goto out;
	}
	rc = set_options(k, o, err, errlen);
	if (rc)
		goto out;
	if (k->samples == false)
		bpf_program__set_autoload(k->skel->progs.cpu_sample, false);
	/* per-call capture: the syscall exit tracepoint, which puts every
	 * syscall of every task on the slow path; else the socket
	 * tracepoints, which only socket calls pass (docs/kext.md) */
	bpf_program__set_autoload(k->skel->progs.sys_exit, o->syscalls);
	bpf_program__set_autoload(k->skel->progs.sock_send_length, !o->syscalls);
	bpf_program__set_autoload(k->skel->progs.sock_recv_length, !o->syscalls);
	bpf_program__set_autoload(k->skel->progs.workqueue_queue_work, !o->syscalls);
	/* the stage's write-out at idle (stage.bpf.c); per-call capture has none */
	bpf_program__set_autoload(k->skel->progs.cpu_idle, !o->syscalls);
	/* yields that find no other task (no switch): the end of schedule(),
	 * a bare tracepoint of Linux 6.16 and later; without it such yields
	 * are not seen in the default capture (docs/kext.md) */
	bpf_program__set_autoload(k->skel->progs.sched_exit_tp,
	                          !o->syscalls &&
	                              libbpf_find_vmlinux_btf_id("sched_exit_tp", BPF_TRACE_RAW_TP) > 0);
	/* kernel waits on FUSE (kwait.bpf.c): only where the kernel has them */
	if (!kernel_has_tracepoint("fuse_request_send", "fuse") ||
	    !kernel_has_tracepoint("fuse_request_end", "fuse")) {
		bpf_program__set_autoload(k->skel->progs.fuse_request_send, false);
		bpf_program__set_autoload(k->skel->progs.fuse_request_end, false);
	}
	if (tracer_bpf__load(k->skel)) {
		rc = load_error(errno, err, errlen);
		goto out;
	}
	for (unsigned c = 0; c < k->ncpus; c++) {
		if (bpf_map_update_elem(bpf_map__fd(k->skel->maps.rings), &c, &k->ring_fds[c], 0)) {
			rc = fail(err, errlen, ARGUS_KEXT_EIO, "cannot install ring %u: %s", c,
			          strerror(errno));
			goto out;
		}
	}
	appset_seed(k);
	for (size_t i = 0; i < o->npids; i++) {
		rc = argus_kext_add_pid(k, o->pids[i]);
		if (rc) {
			fail(err, errlen, rc, "cannot add pid %d to the filter", (int)o->pids[i]);
			goto out;
		}
	}
	*kp = k;
	return ARGUS_KEXT_OK;
out:
	argus_kext_close(k);
	return rc;
}

static int perf_open_cpu_clock(unsigned cpu, unsigned hz)
{
	struct perf_event_attr attr = {
	    .type = PERF_TYPE_SOFTWARE,
	    .config = PERF_COUNT_SW_CPU_CLOCK,
	    .size = sizeof(attr),
	    .freq = 1,
	    .sample_freq = hz,
	};
	return syscall(SYS_perf_event_open, &attr, -1, (int)cpu, -1, PERF_FLAG_FD_CLOEXEC);
}

int argus_kext_start(struct argus_kext *k, char *err, size_t errlen)
{
	if (k->yields_on_demand)
		bpf_program__set_autoattach(k->skel->progs.sched_exit_tp, false);
	if (tracer_bpf__attach(k->skel))
		return load_error(errno, err, errlen);
	if (!k->samples)
		return ARGUS_KEXT_OK;
	for (unsigned c = 0; c < k->ncpus; c++) {
		k->perf_fds[c] = perf_open_cpu_clock(c, k->sample_hz);
		if (k->perf_fds[c] < 0) {
			if (errno == ENODEV)
				continue; /* a possible CPU that is offline */
			return fail(err, errlen,
			            errno == EACCES || errno == EPERM ? ARGUS_KEXT_EPRIV
			                                              : ARGUS_KEXT_ENOSUPPORT,
			            "cannot open the cpu-clock sampler on CPU %u: %s", c,
			            strerror(errno));
		}
		k->perf_links[c] =
		    bpf_program__attach_perf_event(k->skel->progs.cpu_sample, k->perf_fds[c]);
		if (!k->perf_links[c])
			return fail(err, errlen, ARGUS_KEXT_ENOSUPPORT,
			            "cannot attach the sampler on CPU %u: %s", c, strerror(errno));
	}
	return ARGUS_KEXT_OK;
}

/* After detaching: the IPC records the tracer still held (per-call
 * capture) and the records still staged (the default capture) never reach a
 * ring; argus_kext_drop_records hands them out. */
static void take_held(struct argus_kext *k)
{
	int ncpu = libbpf_num_possible_cpus();
	struct tracer_held *v = NULL;
	struct tracer_stage *sv = NULL;
	uint32_t zero = 0;

	if (ncpu <= 0 || k->held || !(v = calloc(ncpu, sizeof(*v))) ||
	    !(sv = calloc(ncpu, sizeof(*sv))) ||
	    !(k->held = calloc((size_t)ncpu * (TRACER_HELD_MAX + TRACER_STAGE_MAX),
	                       sizeof(*k->held))))
		goto out;
	if (bpf_map_lookup_elem(bpf_map__fd(k->skel->maps.held), &zero, v) == 0)
		for (int c = 0; c < ncpu; c++)
			for (unsigned i = 0; i < v[c].n && i < TRACER_HELD_MAX; i++)
				k->held[k->nheld++] = v[c].ev[i];
	/* the current half only: a write-out empties the other before it returns */
	if (bpf_map_lookup_elem(bpf_map__fd(k->skel->maps.stage), &zero, sv) == 0)
		for (int c = 0; c < ncpu; c++) {
			unsigned x = sv[c].cur & 1;

			for (unsigned i = 0; i < sv[c].n[x] && i < TRACER_STAGE_MAX; i++)
				k->held[k->nheld++] = sv[c].ev[x][i];
		}
out:
	free(v);
	free(sv);
}

int argus_kext_watch_yields(struct argus_kext *k, bool on)
{
	struct bpf_program *p = k->skel->progs.sched_exit_tp;
	int rc = ARGUS_KEXT_OK;

	if (!k->yields_on_demand || !bpf_program__autoload(p))
		return ARGUS_KEXT_OK;
	pthread_mutex_lock(&k->yield_mu);
	struct bpf_link **l = &k->skel->links.sched_exit_tp;
	if (!k->yields_stopped && on && !*l) {
		*l = bpf_program__attach(p);
		if (!*l)
			rc = ARGUS_KEXT_ENOSUPPORT;
	} else if (!k->yields_stopped && !on && *l) {
		bpf_link__destroy(*l);
		*l = NULL;
	}
	pthread_mutex_unlock(&k->yield_mu);
	return rc;
}

void argus_kext_stop(struct argus_kext *k)
{
	for (unsigned c = 0; k->perf_links && c < k->ncpus; c++) {
		bpf_link__destroy(k->perf_links[c]);
		k->perf_links[c] = NULL;
	}
	if (k->skel) {
		pthread_mutex_lock(&k->yield_mu);
		tracer_bpf__detach(k->skel);
		k->yields_stopped = true;
		pthread_mutex_unlock(&k->yield_mu);
		take_held(k);
	}
}

void argus_kext_close(struct argus_kext *k)
{
	if (!k)
		return;
	for (unsigned c = 0; k->perf_links && c < k->ncpus; c++)
		bpf_link__destroy(k->perf_links[c]);
	for (unsigned c = 0; k->perf_fds && c < k->ncpus; c++)
		if (k->perf_fds[c] >= 0)
			close(k->perf_fds[c]);
	tracer_bpf__destroy(k->skel);
	for (unsigned c = 0; k->ring_fds && c < k->ncpus; c++)
		if (k->ring_fds[c] >= 0)
			close(k->ring_fds[c]);
	free(k->perf_links);
	free(k->perf_fds);
	free(k->ring_fds);
	free(k->drops_reported);
	free(k->held);
	u32_table_free(&k->procs);
	u32_table_free(&k->names_idx);
	free(k->names);
	u32_table_free(&k->build_ids);
	argus_kext_wait_frames_free(k);
	argus_unwinder_free(k->unwinder);
	argus_procmaps_free(k->pmaps);
	free(k->ucopy);
	pthread_mutex_destroy(&k->full_mu);
	pthread_mutex_destroy(&k->yield_mu);
	free(k);
}

int argus_kext_add_pid(struct argus_kext *k, pid_t pid)
{
	uint32_t key = pid;
	uint8_t one = 1;

	if (pid <= 0)
		return ARGUS_KEXT_EINVAL;
	if (bpf_map_update_elem(bpf_map__fd(k->skel->maps.pids), &key, &one, BPF_ANY))
		return errno == ENOMEM || errno == E2BIG ? ARGUS_KEXT_ENOMEM : ARGUS_KEXT_EIO;
	return ARGUS_KEXT_OK;
}

/* full_pids values: who asked for a process's full stacks */
enum { FULL_APP = 1, FULL_ASKED = 2 };

static int full_stacks_bit(struct argus_kext *k, uint32_t tgid, uint8_t bit, bool on)
{
	int fd = bpf_map__fd(k->skel->maps.full_pids), rc = ARGUS_KEXT_OK;
	uint8_t v = 0;

	if (tgid == 0)
		return ARGUS_KEXT_EINVAL;
	pthread_mutex_lock(&k->full_mu);
	if (bpf_map_lookup_elem(fd, &tgid, &v))
		v = 0;
	v = on ? (uint8_t)(v | bit) : (uint8_t)(v & ~bit);
	if (!v) {
		if (bpf_map_delete_elem(fd, &tgid) && errno != ENOENT)
			rc = ARGUS_KEXT_EIO;
	} else if (bpf_map_update_elem(fd, &tgid, &v, BPF_ANY)) {
		rc = errno == ENOMEM || errno == E2BIG ? ARGUS_KEXT_ENOMEM : ARGUS_KEXT_EIO;
	}
	pthread_mutex_unlock(&k->full_mu);
	return rc;
}

int argus_kext_full_stacks(struct argus_kext *k, uint32_t tgid, bool on)
{
	return full_stacks_bit(k, tgid, FULL_APP, on);
}

int argus_kext_full_stacks_asked(struct argus_kext *k, uint32_t tgid, bool on)
{
	return full_stacks_bit(k, tgid, FULL_ASKED, on);
}

bool argus_kext_samples(const struct argus_kext *k)
{
	return k->samples;
}

bool argus_kext_per_call(const struct argus_kext *k)
{
	return k->per_call;
}

unsigned argus_kext_ncpus(const struct argus_kext *k)
{
	return k->ncpus;
}

int argus_kext_ring_fd(const struct argus_kext *k, unsigned cpu)
{
	return cpu < k->ncpus ? k->ring_fds[cpu] : -1;
}

uint64_t argus_kext_ring_drops(void *arg, unsigned cpu)
{
	struct argus_kext *k = arg;

	if (cpu >= k->ncpus || cpu >= TRACER_CPUS_MAX)
		return 0;
	return __atomic_load_n(&k->skel->bss->ring_lost[cpu], __ATOMIC_RELAXED);
}

uint64_t argus_kext_stack_drops(const struct argus_kext *k)
{
	uint64_t sum = 0;

	for (unsigned c = 0; c < k->ncpus && c < TRACER_CPUS_MAX; c++)
		sum += __atomic_load_n(&k->skel->bss->stack_lost[c], __ATOMIC_RELAXED);
	sum += k->stacks_replaced;
	return sum;
}

uint64_t argus_kext_prog_misses(const struct argus_kext *k)
{
	struct bpf_program *prog;
	uint64_t sum = 0;

	bpf_object__for_each_program(prog, k->skel->obj)
	{
		struct bpf_prog_info info;
		__u32 len = sizeof(info);
		int fd = bpf_program__fd(prog);

		memset(&info, 0, sizeof(info));
		if (fd >= 0 && !bpf_obj_get_info_by_fd(fd, &info, &len))
			sum += info.recursion_misses;
	}
	return sum;
}

size_t argus_kext_drop_records(struct argus_kext *k, struct argus_event *out, size_t max,
                               uint64_t now_ns)
{
	size_t n = 0;

	while (k->held_out < k->nheld && n < max)
		out[n++] = k->held[k->held_out++];
	for (unsigned c = 0; c < k->ncpus && n < max; c++) {
		uint64_t total = argus_kext_ring_drops(k, c);

		if (total <= k->drops_reported[c])
			continue;
		argus_event_drop(&out[n], now_ns, ARGUS_DROP_KERNEL_RING, c,
		                 total - k->drops_reported[c], total);
		out[n].cpu = c;
		k->drops_reported[c] = total;
		n++;
	}
	uint64_t stacks = argus_kext_stack_drops(k);
	if (n < max && stacks > k->stack_drops_reported) {
		argus_event_drop(&out[n++], now_ns, ARGUS_DROP_STACK, 0,
		                 stacks - k->stack_drops_reported, stacks);
		k->stack_drops_reported = stacks;
	}
	/* a system call a program: once a second, and at the end (held out) */
	if (n < max && (k->held || now_ns - k->misses_read_at >= 1000000000ull)) {
		uint64_t misses = argus_kext_prog_misses(k);

		k->misses_read_at = now_ns;
		if (misses > k->misses_reported) {
			argus_event_drop(&out[n++], now_ns, ARGUS_DROP_NESTED, 0,
			                 misses - k->misses_reported, misses);
			k->misses_reported = misses;
		}
	}
	return n;
}

void argus_kext_get_stats(const struct argus_kext *k, struct argus_kext_stats *st)
{
	memset(st, 0, sizeof(*st));
	for (unsigned c = 0; c < k->ncpus; c++)
		st->ring_drops += argus_kext_ring_drops((void *)k, c);
	st->stack_drops = argus_kext_stack_drops(k);
	st->prog_misses = argus_kext_prog_misses(k);
	st->ring_shed = argus_kext_ring_shed(k);
	st->procs_seen = k->procs_seen;
	st->maps_read_failed = k->maps_failed;
	st->maps_read_again = k->maps_again;
	st->ustacks = k->ustacks;
	st->ustacks_lost = k->ustacks_lost + k->skel->bss->ustack_failed;
	st->ustack_ns = k->ustack_ns;
}
