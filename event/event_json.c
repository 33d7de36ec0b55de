/*
 * JSON encoding of argus records: one object per record, stable field names.
 * The per-type fields are data (field_table below), so docs/events.md, the
 * JSON Schema and this encoder can be checked against one table.
 * Hot path of `argus cat --json` and the JSON stream: no printf, no malloc.
 */
#include <stddef.h>
#include <string.h>

#include "event.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

enum fkind {
	F_END = 0,
	F_U8,
	F_U16,
	F_U32,
	F_S32,
	F_U64,
	F_S64,
	F_HEX,    /* u64 kernel / user address: "0x..." string (exceeds 2^53) */
	F_COMM,   /* char[16] */
	F_STR,    /* u32 string id: "<name>_str": id, and "<name>": text if known */
	F_OBJK,   /* u8 enum argus_obj_kind as a name */
	F_SYSNR,  /* u16 syscall number: "nr" and "syscall" */
	F_TIMERK, /* u32 enum argus_timer_kind */
	F_ASYNCK, /* u32 enum argus_async_kind */
	F_STACKK, /* u32 enum argus_stack_kind */
	F_DROPS,  /* u32 enum argus_drop_source */
	F_UIK,    /* u32 enum argus_ui_kind */
	F_LMK,    /* u32 enum argus_landmark_kind */
};

struct field {
	const char *name;
	unsigned short off; /* offset in the payload */
	unsigned char kind;
};

#define P(type, member) ((unsigned short)offsetof(struct type, member))

static const struct field f_fork[] = {
    {"child_pid", P(argus_ev_fork, child_pid), F_U32},
    {"child_tid", P(argus_ev_fork, child_tid), F_U32},
    {"clone_flags", P(argus_ev_fork, clone_flags), F_HEX},
    {"comm", P(argus_ev_fork, comm), F_COMM},
    {0},
};
static const struct field f_exec[] = {
    {"exe", P(argus_ev_exec, exe_str), F_STR},
    {"old_tid", P(argus_ev_exec, old_tid), F_U32},
    {"comm", P(argus_ev_exec, comm), F_COMM},
    {0},
};
static const struct field f_exit[] = {
    {"exit_code", P(argus_ev_exit, exit_code), F_S32},
    {0},
};
static const struct field f_comm[] = {
    {"comm", P(argus_ev_comm, comm), F_COMM},
    {"name", P(argus_ev_comm, name_str), F_STR},
    {"is_process", P(argus_ev_comm, is_process), F_U32},
    {0},
};
static const struct field f_mmap[] = {
    {"start", P(argus_ev_mmap, start), F_HEX}, {"end", P(argus_ev_mmap, end), F_HEX},
    {"pgoff", P(argus_ev_mmap, pgoff), F_HEX}, {"path", P(argus_ev_mmap, path_str), F_STR},
    {"prot", P(argus_ev_mmap, prot), F_U32},   {0},
};
static const struct field f_switch[] = {
    {"next_pid", P(argus_ev_sched_switch, next_pid), F_U32},
    {"next_tid", P(argus_ev_sched_switch, next_tid), F_U32},
    {"prev_state", P(argus_ev_sched_switch, prev_state), F_S64},
    {"prev_prio", P(argus_ev_sched_switch, prev_prio), F_U32},
    {"next_prio", P(argus_ev_sched_switch, next_prio), F_U32},
    {"next_comm", P(argus_ev_sched_switch, next_comm), F_COMM},
    {0},
};
static const struct field f_wakeup[] = {
    {"wakee_pid", P(argus_ev_wakeup, wakee_pid), F_U32},
    {"wakee_tid", P(argus_ev_wakeup, wakee_tid), F_U32},
    {"target_cpu", P(argus_ev_wakeup, target_cpu), F_U32},
    {"wakee_prio", P(argus_ev_wakeup, wakee_prio), F_U32},
    {0},
};
static const struct field f_sys_enter[] = {
    {"nr", P(argus_ev_sys_enter, nr), F_SYSNR},
    {"fd", P(argus_ev_sys_enter, fd), F_S32},
    {"obj_kind", P(argus_ev_sys_enter, obj_kind), F_OBJK},
    {"obj", P(argus_ev_sys_enter, obj), F_HEX},
    {"peer_obj", P(argus_ev_sys_enter, peer_obj), F_HEX},
    {"arg0", P(argus_ev_sys_enter, arg0), F_S64},
    {"arg1", P(argus_ev_sys_enter, arg1), F_S64},
    {0},
};
static const struct field f_sys_exit[] = {
    {"nr", P(argus_ev_sys_exit, nr), F_SYSNR},
    {"fd", P(argus_ev_sys_exit, fd), F_S32},
    {"obj_kind", P(argus_ev_sys_exit, obj_kind), F_OBJK},
    {"obj", P(argus_ev_sys_exit, obj), F_HEX},
    {"peer_obj", P(argus_ev_sys_exit, peer_obj), F_HEX},
    {"ret", P(argus_ev_sys_exit, ret), F_S64},
    {"dur_ns", P(argus_ev_sys_exit, dur_ns), F_U64},
    {"calls", P(argus_ev_sys_exit, calls), F_U8},
    {0},
};
static const struct field f_futex[] = {
    {"obj", P(argus_ev_futex, uaddr), F_HEX},
    {"op", P(argus_ev_futex, op), F_U32},
    {"val", P(argus_ev_futex, val), F_U32},
    {"timeout_ns", P(argus_ev_futex, timeout_ns), F_S64},
    {"ret", P(argus_ev_futex, ret), F_S64},
    {"uaddr2", P(argus_ev_futex, uaddr2), F_HEX},
    {0},
};
static const struct field f_timer[] = {
    {"obj", P(argus_ev_timer, obj), F_HEX},
    {"timer_kind", P(argus_ev_timer, kind), F_TIMERK},
    {"expires_ns", P(argus_ev_timer, expires_ns), F_U64},
    {"interval_ns", P(argus_ev_timer, interval_ns), F_U64},
    {"function", P(argus_ev_timer, function), F_HEX},
    {"fd", P(argus_ev_timer, fd), F_S32},
    {0},
};
static const struct field f_irq[] = {
    {"irq", P(argus_ev_irq, irq), F_U32},
    {"ret", P(argus_ev_irq, ret), F_S32},
    {"name", P(argus_ev_irq, name_str), F_STR},
    {"dur_ns", P(argus_ev_irq, dur_ns), F_U64},
    {0},
};
static const struct field f_kreq[] = {
    {"obj", P(argus_ev_kreq, obj), F_HEX},
    {"unique", P(argus_ev_kreq, unique), F_U64},
    {"ret", P(argus_ev_kreq, ret), F_S64},
    {"dev", P(argus_ev_kreq, dev), F_U32},
    {"requester", P(argus_ev_kreq, requester), F_U32},
    {"opcode", P(argus_ev_kreq, opcode), F_U32},
    {"obj_kind", P(argus_ev_kreq, obj_kind), F_OBJK},
    {0},
};
static const struct field f_stack[] = {
    {"stack_kind", P(argus_ev_stack, kind), F_STACKK},
    {"ustack", P(argus_ev_stack, ustack), F_U32},
    {"kstack", P(argus_ev_stack, kstack), F_U32},
    {"ip", P(argus_ev_stack, ip), F_HEX},
    {"sp_ret", P(argus_ev_stack, sp_ret), F_HEX},
    {"depth", P(argus_ev_stack, depth), F_U32},
    {"unwind", P(argus_ev_stack, unwind), F_U32},
    {0},
};
static const struct field f_ui[] = {
    {"ui_kind", P(argus_ev_ui, kind), F_UIK},
    {"obj", P(argus_ev_ui, obj), F_HEX},
    {"serial", P(argus_ev_ui, serial), F_U64},
    {"bytes", P(argus_ev_ui, bytes), F_S64},
    {"pending_since_ns", P(argus_ev_ui, pending_since_ns), F_U64},
    {"window", P(argus_ev_ui, window), F_U32},
    {0},
};
static const struct field f_loop[] = {
    {"context", P(argus_ev_loop, context), F_HEX},   {"source", P(argus_ev_loop, source), F_HEX},
    {"callback", P(argus_ev_loop, callback), F_HEX}, {"depth", P(argus_ev_loop, depth), F_U32},
    {"name", P(argus_ev_loop, name_str), F_STR},     {0},
};
static const struct field f_landmark[] = {
    {"landmark_kind", P(argus_ev_landmark, kind), F_LMK},
    {"fn", P(argus_ev_landmark, fn), F_HEX},
    {"obj", P(argus_ev_landmark, obj), F_HEX},
    {"begin_ns", P(argus_ev_landmark, begin_ns), F_U64},
    {"nested_ns", P(argus_ev_landmark, nested_ns), F_U64},
    {"depth", P(argus_ev_landmark, depth), F_U32},
    {0},
};
static const struct field f_async[] = {
    {"async_kind", P(argus_ev_async, kind), F_ASYNCK}, {"obj", P(argus_ev_async, obj), F_HEX},
    {"callback", P(argus_ev_async, callback), F_HEX},  {"target", P(argus_ev_async, target), F_HEX},
    {"delay_ns", P(argus_ev_async, delay_ns), F_U64},  {0},
};
static const struct field f_sync[] = {
    {"obj", P(argus_ev_sync, obj), F_HEX},
    {"mutex", P(argus_ev_sync, mutex), F_HEX},
    {"ret", P(argus_ev_sync, ret), F_S64},
    {0},
};
static const struct field f_dbus[] = {
    {"obj", P(argus_ev_dbus, conn), F_HEX},
    {"serial", P(argus_ev_dbus, serial), F_U32},
    {"reply_serial", P(argus_ev_dbus, reply_serial), F_U32},
    {"msg_type", P(argus_ev_dbus, msg_type), F_U32},
    {"member", P(argus_ev_dbus, member_str), F_STR},
    {"dest", P(argus_ev_dbus, dest_str), F_STR},
    {0},
};
static const struct field f_flag[] = {
    {"addr", P(argus_ev_flag, addr), F_HEX},
    {"value", P(argus_ev_flag, value), F_U64},
    {"ip", P(argus_ev_flag, ip), F_HEX},
    {"len", P(argus_ev_flag, len), F_U32},
    {"watch_id", P(argus_ev_flag, watch_id), F_U32},
    {0},
};
static const struct field f_drop[] = {
    {"source", P(argus_ev_drop, source), F_DROPS},
    {"source_id", P(argus_ev_drop, source_id), F_U32},
    {"count", P(argus_ev_drop, count), F_U64},
    {"total", P(argus_ev_drop, total), F_U64},
    {"first_ts", P(argus_ev_drop, first_ts), F_U64},
    {0},
};

/* The JSON fields of each type: the table docs/events.md follows. */
static const struct field *const field_table[ARGUS_EV_TYPE_MAX] = {
    [ARGUS_EV_PROC_FORK] = f_fork,
    [ARGUS_EV_THREAD_NEW] = f_fork,
    [ARGUS_EV_PROC_EXEC] = f_exec,
    [ARGUS_EV_THREAD_EXIT] = f_exit,
    [ARGUS_EV_PROC_EXIT] = f_exit,
    [ARGUS_EV_COMM] = f_comm,
    [ARGUS_EV_MMAP] = f_mmap,
    [ARGUS_EV_SCHED_SWITCH] = f_switch,
    [ARGUS_EV_SCHED_WAKEUP] = f_wakeup,
    [ARGUS_EV_SCHED_WAKEUP_NEW] = f_wakeup,
    [ARGUS_EV_SYS_ENTER] = f_sys_enter,
    [ARGUS_EV_SYS_EXIT] = f_sys_exit,
    [ARGUS_EV_IPC_SEND] = f_sys_exit,
    [ARGUS_EV_IPC_RECV] = f_sys_exit,
    [ARGUS_EV_KREQ_SEND] = f_kreq,
    [ARGUS_EV_KREQ_END] = f_kreq,
    [ARGUS_EV_FUTEX_WAIT] = f_futex,
    [ARGUS_EV_FUTEX_WAKE] = f_futex,
    [ARGUS_EV_TIMER_ARM] = f_timer,
    [ARGUS_EV_TIMER_FIRE] = f_timer,
    [ARGUS_EV_TIMER_CANCEL] = f_timer,
    [ARGUS_EV_IRQ_ENTRY] = f_irq,
    [ARGUS_EV_IRQ_EXIT] = f_irq,
    [ARGUS_EV_SOFTIRQ_ENTRY] = f_irq,
    [ARGUS_EV_SOFTIRQ_EXIT] = f_irq,
    [ARGUS_EV_STACK] = f_stack,
    [ARGUS_EV_CPU_SAMPLE] = f_stack,
    [ARGUS_EV_UI_INPUT] = f_ui,
    [ARGUS_EV_LOOP_ITER_BEGIN] = f_loop,
    [ARGUS_EV_LOOP_ITER_END] = f_loop,
    [ARGUS_EV_DISPATCH_BEGIN] = f_loop,
    [ARGUS_EV_DISPATCH_END] = f_loop,
    [ARGUS_EV_LANDMARK] = f_landmark,
    [ARGUS_EV_ASYNC_POST] = f_async,
    [ARGUS_EV_ASYNC_RUN_BEGIN] = f_async,
    [ARGUS_EV_ASYNC_RUN_END] = f_async,
    [ARGUS_EV_COND_WAIT] = f_sync,
    [ARGUS_EV_COND_WAKE] = f_sync,
    [ARGUS_EV_COND_SIGNAL] = f_sync,
    [ARGUS_EV_COND_BROADCAST] = f_sync,
    [ARGUS_EV_SEM_WAIT] = f_sync,
    [ARGUS_EV_SEM_POST] = f_sync,
    [ARGUS_EV_MUTEX_HANDOFF] = f_sync,
    [ARGUS_EV_DBUS_SEND] = f_dbus,
    [ARGUS_EV_DBUS_RECV] = f_dbus,
    [ARGUS_EV_FLAG_WRITE] = f_flag,
    [ARGUS_EV_FLAG_READ] = f_flag,
    [ARGUS_EV_DROP] = f_drop,
};

static const char *const flag_names[] = {"hardirq", "softirq", "kthread", "late",
                                         "hook",    "trunc",   "synth",   "noret"};
static const char *const timer_kinds[] = {"hrtimer", "timerfd", "posix", "gsource", "sleeper"};
static const char *const async_kinds[] = {"idle",       "timeout", "invoke", "attach",
                                          "threadpool", "task",    "qt"};
static const char *const stack_kinds[] = {"wait", "sample", "event", "wait_end"};
static const char *const ui_kinds[] = {"display_read", "key",   "button", "motion",
                                       "expose",       "other", "map"};
static const char *const landmark_kinds[] = {"signal", "gtk_event", "paint", "qt_event",
                                             "qt_signal"};

/* A bounded appender: counts what it would write past cap, like snprintf. */
struct out {
	char *p;
	size_t len, cap;
};

static inline void put(struct out *o, const char *s, size_t n)
{
	if (o->len + n < o->cap)
		memcpy(o->p + o->len, s, n);
	else if (o->len < o->cap)
		memcpy(o->p + o->len, s, o->cap - o->len - 1);
	o->len += n;
}

static inline void putc_(struct out *o, char c)
{
	if (o->len + 1 < o->cap)
		o->p[o->len] = c;
	o->len++;
}

#define PUTS(o, lit) put((o), (lit), sizeof(lit) - 1)

static void put_u64(struct out *o, uint64_t v)
{
	char tmp[20];
	int i = 20;
	do {
		tmp[--i] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	put(o, tmp + i, (size_t)(20 - i));
}

static void put_s64(struct out *o, int64_t v)
{
	if (v < 0) {
		putc_(o, '-');
		put_u64(o, (uint64_t)0 - (uint64_t)v);
	} else {
		put_u64(o, (uint64_t)v);
	}
}

static void put_hex(struct out *o, uint64_t v)
{
	static const char digits[] = "0123456789abcdef";
	char tmp[18];
	int i = 18;
	do {
		tmp[--i] = digits[v & 15];
		v >>= 4;
	} while (v);
	tmp[--i] = 'x';
	tmp[--i] = '0';
	putc_(o, '"');
	put(o, tmp + i, (size_t)(18 - i));
	putc_(o, '"');
}

/* JSON string with escaping; stops at NUL or max bytes. Bytes >= 0x80 that
 * are not valid UTF-8 are not checked here: comm names are ASCII in practice,
 * and control characters and quotes are always escaped. */
static void put_str(struct out *o, const char *s, size_t max)
{
	static const char hex[] = "0123456789abcdef";
	putc_(o, '"');
	for (size_t i = 0; i < max && s[i]; i++) {
		/* a run of bytes that need no escape is copied at once */
		size_t j = i;
		while (j < max && s[j] >= 0x20 && s[j] < 0x7f && s[j] != '"' && s[j] != '\\')
			j++;
		if (j > i) {
			put(o, s + i, j - i);
			i = j - 1;
			continue;
		}
		unsigned char c = (unsigned char)s[i];
		if (c == '"' || c == '\\') {
			putc_(o, '\\');
			putc_(o, (char)c);
		} else if (c < 0x20 || c >= 0x7f) {
			/* non-ASCII escaped byte-wise: keeps output valid UTF-8 */
			char esc[6] = {'\\', 'u', '0', '0', hex[c >> 4], hex[c & 15]};
			put(o, esc, 6);
		} else {
			putc_(o, (char)c);
		}
	}
	putc_(o, '"');
}

size_t argus_json_quote(const char *s, size_t max, char *buf, size_t cap)
{
	struct out o = {buf, 0, cap};
	put_str(&o, s, max);
	if (cap)
		buf[o.len < cap ? o.len : cap - 1] = '\0';
	return o.len;
}

static void put_key(struct out *o, const char *k)
{
	putc_(o, ',');
	putc_(o, '"');
	put(o, k, strlen(k));
	putc_(o, '"');
	putc_(o, ':');
}

static void put_enum(struct out *o, const char *const *names, size_t n, uint32_t v)
{
	if (v < n && names[v])
		put_str(o, names[v], 64);
	else
		put_u64(o, v);
}

static void put_field(struct out *o, const struct field *f, const unsigned char *pl,
                      const struct argus_json_ctx *ctx)
{
	const unsigned char *p = pl + f->off;
	uint64_t u64;
	int64_t s64;
	uint32_t u32;
	int32_t s32;
	uint16_t u16;

	switch (f->kind) {
	case F_U8:
		put_key(o, f->name);
		put_u64(o, *p);
		break;
	case F_U16:
		memcpy(&u16, p, 2);
		put_key(o, f->name);
		put_u64(o, u16);
		break;
	case F_U32:
		memcpy(&u32, p, 4);
		put_key(o, f->name);
		put_u64(o, u32);
		break;
	case F_S32:
		memcpy(&s32, p, 4);
		put_key(o, f->name);
		put_s64(o, s32);
		break;
	case F_U64:
		memcpy(&u64, p, 8);
		put_key(o, f->name);
		put_u64(o, u64);
		break;
	case F_S64:
		memcpy(&s64, p, 8);
		put_key(o, f->name);
		put_s64(o, s64);
		break;
	case F_HEX:
		memcpy(&u64, p, 8);
		put_key(o, f->name);
		put_hex(o, u64);
		break;
	case F_COMM:
		put_key(o, f->name);
		put_str(o, (const char *)p, ARGUS_COMM_LEN);
		break;
	case F_STR: {
		char key[48];
		size_t n = strlen(f->name);
		memcpy(&u32, p, 4);
		memcpy(key, f->name, n);
		memcpy(key + n, "_str", 5);
		put_key(o, key);
		put_u64(o, u32);
		const char *s = (u32 && ctx && ctx->string) ? ctx->string(ctx->arg, u32) : NULL;
		if (s) {
			put_key(o, f->name);
			put_str(o, s, 4096);
		}
		break;
	}
	case F_OBJK: {
		const char *kind = argus_obj_kind_name(*p);
		put_key(o, f->name);
		if (kind)
			put_str(o, kind, 16);
		else
			put_u64(o, *p);
		break;
	}
	case F_SYSNR: {
		memcpy(&u16, p, 2);
		put_key(o, "nr");
		put_u64(o, u16);
		const char *name = argus_syscall_name(u16);
		if (name) {
			put_key(o, "syscall");
			put_str(o, name, 32);
		}
		break;
	}
	case F_TIMERK:
	case F_ASYNCK:
	case F_STACKK:
	case F_DROPS:
	case F_UIK:
	case F_LMK: {
		static const struct {
			const char *const *names;
			size_t n;
		} enums[] = {
		    [F_TIMERK - F_TIMERK] = {timer_kinds, ARRAY_SIZE(timer_kinds)},
		    [F_ASYNCK - F_TIMERK] = {async_kinds, ARRAY_SIZE(async_kinds)},
		    [F_STACKK - F_TIMERK] = {stack_kinds, ARRAY_SIZE(stack_kinds)},
		    [F_DROPS - F_TIMERK] = {argus_drop_source_names, ARGUS_DROP_SOURCES},
		    [F_UIK - F_TIMERK] = {ui_kinds, ARRAY_SIZE(ui_kinds)},
		    [F_LMK - F_TIMERK] = {landmark_kinds, ARRAY_SIZE(landmark_kinds)},
		};
		memcpy(&u32, p, 4);
		put_key(o, f->name);
		put_enum(o, enums[f->kind - F_TIMERK].names, enums[f->kind - F_TIMERK].n, u32);
		break;
	}
	default:
		break;
	}
}

size_t argus_event_to_json(const struct argus_event *ev, const struct argus_json_ctx *ctx,
                           char *buf, size_t cap)
{
	struct out o = {buf, 0, cap};
	const char *name = argus_event_type_name(ev->type);

	PUTS(&o, "{\"ts\":");
	put_u64(&o, ev->ts);
	PUTS(&o, ",\"type\":");
	if (name)
		put_str(&o, name, 32);
	else
		put_u64(&o, ev->type);
	PUTS(&o, ",\"cpu\":");
	put_u64(&o, ev->cpu);
	PUTS(&o, ",\"pid\":");
	put_u64(&o, ev->pid);
	PUTS(&o, ",\"tid\":");
	put_u64(&o, ev->tid);
	if (ev->flags) {
		PUTS(&o, ",\"flags\":[");
		bool first = true;
		for (unsigned i = 0; i < 16; i++) {
			if (!(ev->flags & (1u << i)))
				continue;
			if (!first)
				putc_(&o, ',');
			first = false;
			if (i < ARRAY_SIZE(flag_names))
				put_str(&o, flag_names[i], 16);
			else
				put_u64(&o, 1u << i);
		}
		putc_(&o, ']');
	}

	const struct field *fields = name ? field_table[ev->type] : NULL;
	if (fields) {
		for (const struct field *f = fields; f->kind != F_END; f++)
			put_field(&o, f, ev->raw, ctx);
	} else {
		/* unknown type: keep the bytes so nothing is lost */
		static const char hex[] = "0123456789abcdef";
		PUTS(&o, ",\"raw\":\"");
		for (size_t i = 0; i < sizeof(ev->raw); i++) {
			putc_(&o, hex[ev->raw[i] >> 4]);
			putc_(&o, hex[ev->raw[i] & 15]);
		}
		putc_(&o, '"');
	}
	putc_(&o, '}');

	if (cap)
		buf[o.len < cap ? o.len : cap - 1] = '\0';
	return o.len;
}
