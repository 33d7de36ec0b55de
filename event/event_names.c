/* Stable names for event types, object kinds, syscalls and anomaly kinds. */
#include <string.h>

#include "event.h"
#include "syscalls.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* Indexed by enum argus_event_type; names are part of the JSON contract. */
static const char *const type_names[ARGUS_EV_TYPE_MAX] = {
    [ARGUS_EV_PROC_FORK] = "proc_fork",
    [ARGUS_EV_THREAD_NEW] = "thread_new",
    [ARGUS_EV_PROC_EXEC] = "proc_exec",
    [ARGUS_EV_THREAD_EXIT] = "thread_exit",
    [ARGUS_EV_PROC_EXIT] = "proc_exit",
    [ARGUS_EV_COMM] = "comm",
    [ARGUS_EV_MMAP] = "mmap",
    [ARGUS_EV_SCHED_SWITCH] = "sched_switch",
    [ARGUS_EV_SCHED_WAKEUP] = "sched_wakeup",
    [ARGUS_EV_SCHED_WAKEUP_NEW] = "sched_wakeup_new",
    [ARGUS_EV_SYS_ENTER] = "sys_enter",
    [ARGUS_EV_SYS_EXIT] = "sys_exit",
    [ARGUS_EV_IPC_SEND] = "ipc_send",
    [ARGUS_EV_IPC_RECV] = "ipc_recv",
    [ARGUS_EV_KREQ_SEND] = "kreq_send",
    [ARGUS_EV_KREQ_END] = "kreq_end",
    [ARGUS_EV_FUTEX_WAIT] = "futex_wait",
    [ARGUS_EV_FUTEX_WAKE] = "futex_wake",
    [ARGUS_EV_TIMER_ARM] = "timer_arm",
    [ARGUS_EV_TIMER_FIRE] = "timer_fire",
    [ARGUS_EV_TIMER_CANCEL] = "timer_cancel",
    [ARGUS_EV_IRQ_ENTRY] = "irq_entry",
    [ARGUS_EV_IRQ_EXIT] = "irq_exit",
    [ARGUS_EV_SOFTIRQ_ENTRY] = "softirq_entry",
    [ARGUS_EV_SOFTIRQ_EXIT] = "softirq_exit",
    [ARGUS_EV_STACK] = "stack",
    [ARGUS_EV_CPU_SAMPLE] = "cpu_sample",
    [ARGUS_EV_UI_INPUT] = "ui_input",
    [ARGUS_EV_LOOP_ITER_BEGIN] = "loop_iter_begin",
    [ARGUS_EV_LOOP_ITER_END] = "loop_iter_end",
    [ARGUS_EV_DISPATCH_BEGIN] = "dispatch_begin",
    [ARGUS_EV_DISPATCH_END] = "dispatch_end",
    [ARGUS_EV_LANDMARK] = "landmark",
    [ARGUS_EV_ASYNC_POST] = "async_post",
    [ARGUS_EV_ASYNC_RUN_BEGIN] = "async_run_begin",
    [ARGUS_EV_ASYNC_RUN_END] = "async_run_end",
    [ARGUS_EV_COND_WAIT] = "cond_wait",
    [ARGUS_EV_COND_WAKE] = "cond_wake",
    [ARGUS_EV_COND_SIGNAL] = "cond_signal",
    [ARGUS_EV_COND_BROADCAST] = "cond_broadcast",
    [ARGUS_EV_SEM_WAIT] = "sem_wait",
    [ARGUS_EV_SEM_POST] = "sem_post",
    [ARGUS_EV_MUTEX_HANDOFF] = "mutex_handoff",
    [ARGUS_EV_DBUS_SEND] = "dbus_send",
    [ARGUS_EV_DBUS_RECV] = "dbus_recv",
    [ARGUS_EV_FLAG_WRITE] = "flag_write",
    [ARGUS_EV_FLAG_READ] = "flag_read",
    [ARGUS_EV_DROP] = "drop",
};

const char *argus_event_type_name(unsigned type)
{
	return type < ARRAY_SIZE(type_names) ? type_names[type] : NULL;
}

bool argus_event_type_valid(unsigned type)
{
	return argus_event_type_name(type) != NULL;
}

int argus_event_type_from_name(const char *name)
{
	if (!name)
		return -1;
	for (unsigned i = 0; i < ARRAY_SIZE(type_names); i++)
		if (type_names[i] && strcmp(type_names[i], name) == 0)
			return (int)i;
	return -1;
}

static const char *const obj_kind_names[ARGUS_OBJ_KIND_MAX] = {
    [ARGUS_OBJ_NONE] = "none",       [ARGUS_OBJ_PIPE] = "pipe",
    [ARGUS_OBJ_UNIX] = "unix",       [ARGUS_OBJ_EVENTFD] = "eventfd",
    [ARGUS_OBJ_TCP] = "tcp",         [ARGUS_OBJ_TIMERFD] = "timerfd",
    [ARGUS_OBJ_FUTEX] = "futex",     [ARGUS_OBJ_HRTIMER] = "hrtimer",
    [ARGUS_OBJ_FILE] = "file",       [ARGUS_OBJ_SOCKETPAIR] = "socketpair",
    [ARGUS_OBJ_DISPLAY] = "display", [ARGUS_OBJ_PTY] = "pty",
    [ARGUS_OBJ_FUSE] = "fuse",
};

const char *const argus_drop_source_names[ARGUS_DROP_SOURCES] = {
    [ARGUS_DROP_KERNEL_RING] = "kernel_ring",
    [ARGUS_DROP_HOOK_RING] = "hook_ring",
    [ARGUS_DROP_MERGE] = "merge",
    [ARGUS_DROP_CLIENT] = "client",
    [ARGUS_DROP_DECODE] = "decode",
    [ARGUS_DROP_STACK] = "stack",
    [ARGUS_DROP_NESTED] = "nested",
};

const char *argus_obj_kind_name(unsigned kind)
{
	return kind < ARRAY_SIZE(obj_kind_names) ? obj_kind_names[kind] : NULL;
}

/* Trace numbering (x86-64): the rows of the table that have a name. */
const char *argus_syscall_name(unsigned nr)
{
	switch (nr) {
#define NAME_ROW_(name, nr, kclass, karg, wait, named)                                             \
	case nr:                                                                                   \
		return named ? #name : NULL;
		ARGUS_SYSCALLS(NAME_ROW_)
#undef NAME_ROW_
	}
	return NULL;
}

/* Trace numbering: enum argus_syscall_wait of a call. */
unsigned argus_syscall_wait(unsigned nr)
{
	switch (nr) {
#define WAIT_ROW_(name, nr, kclass, karg, wait, named)                                             \
	case nr:                                                                                   \
		return ARGUS_SYSW_##wait;
		ARGUS_SYSCALLS(WAIT_ROW_)
#undef WAIT_ROW_
	}
	return ARGUS_SYSW_OTHER;
}

static const char *const anomaly_names[] = {
    [ARGUS_ANOMALY_LONG_RUNNING] = "long_running",
    [ARGUS_ANOMALY_LONG_WAIT_CHAIN] = "long_wait_chain",
    [ARGUS_ANOMALY_CIRCULAR_TIMEOUT] = "circular_timeout",
    [ARGUS_ANOMALY_MISSING_WAKEUP] = "missing_wakeup",
    [ARGUS_ANOMALY_YIELD_LOOP] = "yield_loop",
    [ARGUS_ANOMALY_DECOY_IDLE] = "decoy_idle",
    [ARGUS_ANOMALY_DECOY_BUSY] = "decoy_busy",
};

const char *argus_anomaly_kind_name(unsigned kind)
{
	return kind < ARRAY_SIZE(anomaly_names) ? anomaly_names[kind] : NULL;
}
