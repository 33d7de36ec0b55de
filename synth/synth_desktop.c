/*
 * synth_desktop.c - the synthetic desktop put together: who runs (processes,
 * threads, their stacks), the user who types and clicks, interrupts and
 * kernel work, and the plan that injects anomalies (docs/synth.md). The
 * behaviours are in synth_apps.c and synth_services.c.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "synth_desktop.h"

/* ---- the user, interrupts, the plan ---- */

static void input_irq(struct sim *s, struct app *a, uint8_t scen, uint8_t kind, bool anomaly)
{
	struct desktop *d = s->d;
	struct argus_event *e = sy_ev_cpu(s, 0, ARGUS_F_HARDIRQ, ARGUS_EV_IRQ_ENTRY);
	e->irq.irq = 33;
	e->irq.name_str = d->irq_input_str;
	struct msg m = {.to = a->ui->idx,
	                .kind = kind,
	                .scen = scen,
	                .anomaly = anomaly,
	                .serial = ++d->serial};
	if (sy_mb_push(d->input, CH_IN, &m))
		sy_wake_irq(s, 0, ARGUS_F_HARDIRQ, d->input, CH_IN);
	e = sy_ev_cpu(s, 0, ARGUS_F_HARDIRQ, ARGUS_EV_IRQ_EXIT);
	e->irq.irq = 33;
	e->irq.ret = 1;
	e->irq.name_str = d->irq_input_str;
	if (anomaly)
		a->stalled = true;
}

static bool app_free(const struct app *a)
{
	return !a->busy && !a->stalled && a->ui->mb[CH_IN].n < 2;
}

static void user_input(struct sim *s)
{
	struct desktop *d = s->d;
	if (sy_chance(s, 0.02))
		d->focus = (uint32_t)sy_rnd(s, 0, d->napps - 1);
	struct app *a = &d->app[d->focus];
	if (a->stalled && a->ui->mb[CH_IN].n < 3 && sy_chance(s, 0.05)) {
		/* clicking at the frozen window: input piles up on its socket */
		input_irq(s, a, SC_SIMPLE, ARGUS_UI_BUTTON, false);
		return;
	}
	if (!app_free(a) || a->ui->mb[CH_IN].n)
		return; /* the user waits for the app */
	uint64_t r = sy_rnd(s, 0, 99);
	if (r < 55) {
		input_irq(s, a, SC_SIMPLE, ARGUS_UI_MOTION, false);
		return;
	}
	static const uint8_t weights[NSC] = {30, 15, 15, 10, 8, 6, 5, 6, 5};
	uint64_t w = sy_rnd(s, 0, 99), acc = 0;
	uint8_t sc = SC_SIMPLE;
	for (uint8_t i = 0; i < NSC; i++) {
		acc += weights[i];
		if (w < acc) {
			sc = i;
			break;
		}
	}
	if (sc == SC_CIRC && (d->focus != d->circ_app || d->render_in_sync))
		sc = SC_SIMPLE;
	input_irq(s, a, sc, r < 85 ? ARGUS_UI_KEY : ARGUS_UI_BUTTON, false);
}

static const uint8_t scen_of[8] = {
    [ARGUS_ANOMALY_LONG_RUNNING] = SC_LONG,     [ARGUS_ANOMALY_LONG_WAIT_CHAIN] = SC_CHAIN,
    [ARGUS_ANOMALY_CIRCULAR_TIMEOUT] = SC_CIRC, [ARGUS_ANOMALY_MISSING_WAKEUP] = SC_COND,
    [ARGUS_ANOMALY_YIELD_LOOP] = SC_YIELD,
};

static void plan_tick(struct sim *s)
{
	struct desktop *d = s->d;
	if (d->inflight || d->next >= d->total)
		return;
	/* anomaly i is due at 12 % + 80 % * i / total of the record budget */
	uint64_t out = s->emitted + s->nbuf;
	uint64_t due = s->o.events * (120ULL * d->total + 800ULL * d->next) / (1000ULL * d->total);
	if (out < due)
		return;
	uint32_t k = d->order[d->next % d->nk];
	/* will the episode fit in what is left? (at the rate so far; the decoy
	 * idle wait is the longest: up to 1.5 s to begin, 6 s long) */
	uint64_t ms = k == ARGUS_ANOMALY_DECOY_IDLE ? 9000 : 5000;
	uint64_t need = out * ms / ((s->now - s->t0) / 1000000 + 1) + 2000;
	if (out + need > s->o.events) {
		s->st.skipped++;
		d->next++;
		return;
	}
	memset(&d->pend, 0, sizeof(d->pend));
	if (k == ARGUS_ANOMALY_DECOY_IDLE || k == ARGUS_ANOMALY_DECOY_BUSY) {
		d->decoy_req = k;
		d->pend.need = 1;
		d->inflight = k;
		d->next++;
		return;
	}
	struct app *a =
	    &d->app[k == ARGUS_ANOMALY_CIRCULAR_TIMEOUT ? d->circ_app : (k - 1) % d->napps];
	uint8_t sc = scen_of[k];
	if (!app_free(a) || a->ui->mb[CH_IN].n || (sc == SC_CIRC && d->render_in_sync))
		return;
	if (a->done[sc] < BASELINES) {
		input_irq(s, a, sc, ARGUS_UI_KEY, false); /* a normal run first */
		return;
	}
	d->pend.need = 2; /* the UI part and the root-cause part */
	d->inflight = k;
	d->next++;
	a->done[sc] = 0;                   /* the next anomaly of this kind gets fresh baselines */
	d->focus = (uint32_t)(a - d->app); /* the user is at this app */
	input_irq(s, a, sc, ARGUS_UI_KEY, true);
}

static void tick(struct sim *s, unsigned c)
{
	struct desktop *d = s->d;
	if (s->cpu[c].cur && sy_chance(s, 0.3)) {
		unsigned vec = sy_chance(s, 0.5) ? 1 : 9; /* TIMER, RCU */
		sy_ev_cpu(s, c, ARGUS_F_SOFTIRQ, ARGUS_EV_SOFTIRQ_ENTRY)->irq.irq = vec;
		sy_ev_cpu(s, c, ARGUS_F_SOFTIRQ, ARGUS_EV_SOFTIRQ_EXIT)->irq.irq = vec;
	}
	if (c == 0 && sy_chance(s, 0.03)) {
		struct argus_event *e = sy_ev_cpu(s, c, ARGUS_F_HARDIRQ, ARGUS_EV_IRQ_ENTRY);
		e->irq.irq = 130;
		e->irq.name_str = d->irq_net_str;
		e = sy_ev_cpu(s, c, ARGUS_F_HARDIRQ, ARGUS_EV_IRQ_EXIT);
		e->irq.irq = 130;
		e->irq.ret = 1;
		e->irq.name_str = d->irq_net_str;
		sy_ev_cpu(s, c, ARGUS_F_SOFTIRQ, ARGUS_EV_SOFTIRQ_ENTRY)->irq.irq = 3;
		sy_ev_cpu(s, c, ARGUS_F_SOFTIRQ, ARGUS_EV_SOFTIRQ_EXIT)->irq.irq = 3;
	}
}

/* Kernel work queued from a timer softirq; when ambiguous wake-ups are short
 * of the target share, the work wakes an inotify watcher. */
static uint64_t background(struct sim *s)
{
	struct desktop *d = s->d;
	bool need = sy_need_ambiguous(s) && s->o.ambiguous > 0;
	if (!need && !sy_chance(s, 0.05))
		return sy_rnd(s, 300000, 900000);
	unsigned c = (unsigned)sy_rnd(s, 0, s->ncpu - 1);
	struct sthread *kw = d->kw[c];
	if (kw->state != T_BLOCKED)
		return 100000;
	if (need) {
		unsigned w = (unsigned)sy_rnd(s, 0, 1);
		if (d->watch[w]->state != T_BLOCKED)
			w ^= 1;
		kw->k = d->watch[w]->state == T_BLOCKED ? (int)w + 1 : 0;
	}
	sy_ev_cpu(s, c, ARGUS_F_SOFTIRQ, ARGUS_EV_SOFTIRQ_ENTRY)->irq.irq = 1;
	sy_wake_irq(s, c, ARGUS_F_SOFTIRQ, kw, CH_IN);
	sy_ev_cpu(s, c, ARGUS_F_SOFTIRQ, ARGUS_EV_SOFTIRQ_EXIT)->irq.irq = 1;
	return need ? sy_rnd(s, 60000, 250000) : sy_rnd(s, 300000, 900000);
}

static void disk_done(struct sim *s, struct sthread *t)
{
	struct desktop *d = s->d;
	unsigned c = 1 % s->ncpu;
	struct argus_event *e = sy_ev_cpu(s, c, ARGUS_F_HARDIRQ, ARGUS_EV_IRQ_ENTRY);
	e->irq.irq = 41;
	e->irq.name_str = d->irq_disk_str;
	e = sy_ev_cpu(s, c, ARGUS_F_HARDIRQ, ARGUS_EV_IRQ_EXIT);
	e->irq.irq = 41;
	e->irq.ret = 1;
	e->irq.name_str = d->irq_disk_str;
	sy_ev_cpu(s, c, ARGUS_F_SOFTIRQ, ARGUS_EV_SOFTIRQ_ENTRY)->irq.irq = 4; /* BLOCK */
	sy_wake_irq(s, c, ARGUS_F_SOFTIRQ, t, CH_DISK);
	sy_ev_cpu(s, c, ARGUS_F_SOFTIRQ, ARGUS_EV_SOFTIRQ_EXIT)->irq.irq = 4;
}

static void timerfd_fire(struct sim *s, struct sthread *t)
{
	uint64_t at = s->now;
	struct argus_event *e = sy_ev_cpu(s, t->cpu, ARGUS_F_HARDIRQ, ARGUS_EV_TIMER_FIRE);
	e->timer.obj = sy_timerfd_of(t);
	e->timer.expires_ns = at;
	e->timer.fd = 5;
	e->timer.kind = ARGUS_TIMER_TIMERFD;
	sy_wake_irq(s, t->cpu, ARGUS_F_HARDIRQ, t, CH_TIMER);
}

void sy_desktop_event(struct sim *s, const struct hitem *h)
{
	struct desktop *d = s->d;
	switch (h->kind) {
	case H_USER:
		user_input(s);
		sy_heap_push(s, s->now + sy_rnd(s, 8000000, 70000000), H_USER, 0, 0);
		break;
	case H_PLAN:
		plan_tick(s);
		sy_heap_push(s, s->now + 10000000, H_PLAN, 0, 0);
		break;
	case H_TICK:
		tick(s, h->a);
		sy_heap_push(s, s->now + 4000000, H_TICK, h->a, 0);
		break;
	case H_BG:
		sy_heap_push(s, s->now + background(s), H_BG, 0, 0);
		break;
	case H_DISK:
		disk_done(s, &s->th[h->a]);
		break;
	case H_TIMERFD:
		/* only the latest arming fires (the plan may fire one early) */
		if (h->gen == (uint32_t)s->th[h->a].t2) {
			s->th[h->a].t2++;
			timerfd_fire(s, &s->th[h->a]);
		}
		break;
	default:
		break;
	}
	(void)d;
}

/* ---- building the desktop ---- */

static const char *const app_names[] = {"gedit",          "nautilus", "chromium",         "evince",
                                        "gnome-terminal", "totem",    "gnome-calculator", "eog"};
static const char *const app_prefix[] = {"gedit",    "nautilus", "chrome", "ev",
                                         "terminal", "totem",    "calc",   "eog"};

#define MAIN_TAIL                                                                                  \
	"|glib:g_main_context_iterate|glib:g_main_loop_run|gtk:gtk_main|exe:main|libc:__libc_"     \
	"start_main"
#define DISPATCH_TAIL                                                                              \
	"|gtk:gtk_main_do_event|gdk:_gdk_event_emit|gdk:gdk_event_source_dispatch|glib:g_main_"    \
	"context_dispatch" MAIN_TAIL
#define THREAD_TAIL "|glib:g_thread_proxy|libc:start_thread|libc:__clone3"
#define SRV_TAIL    "|glib:g_main_context_iterate|glib:g_main_loop_run|exe:main|libc:__libc_start_main"

static struct sthread *mk(struct sim *s, struct sproc *p, const char *comm, step_fn fn,
                          unsigned *cpu)
{
	struct sthread *t = sy_world_thread(s, p, comm, (*cpu)++);
	if (t)
		t->step = fn;
	return t;
}

static struct sproc *daemon1(struct sim *s, const char *comm, const char *exe, step_fn fn,
                             unsigned *cpu, struct sthread **out)
{
	struct sproc *p = sy_world_proc(s, comm, exe, 1, false);
	*out = p ? mk(s, p, comm, fn, cpu) : NULL;
	return *out ? p : NULL;
}

int sy_desktop_init(struct sim *s)
{
	struct desktop *d = calloc(1, sizeof(*d));
	if (!d)
		return ARGUS_SYNTH_ENOMEM;
	s->d = d;
	d->napps = s->o.apps;
	unsigned cpu = 0;
	char name[32];

	s->next_pid = 40;
	for (unsigned c = 0; c < s->ncpu; c++) {
		snprintf(name, sizeof(name), "kworker/%u:1", c);
		struct sproc *p = sy_world_proc(s, name, NULL, 2, true);
		unsigned kc = c;
		d->kw[c] = p ? mk(s, p, name, sy_kworker_step, &kc) : NULL;
		if (!d->kw[c])
			return ARGUS_SYNTH_ENOMEM;
	}
	s->next_pid = 700 + (uint32_t)sy_rnd(s, 0, 300);

	struct sproc *px = sy_world_proc(s, "Xorg", "/usr/lib/xorg/Xorg", 1, false);
	if (!px)
		return ARGUS_SYNTH_ENOMEM;
	d->xorg = mk(s, px, "Xorg", sy_xorg_step, &cpu);
	d->input = mk(s, px, "InputThread", sy_input_step, &cpu);
	if (!d->xorg || !d->input)
		return ARGUS_SYNTH_ENOMEM;
	d->xorg->stk[0] =
	    sy_stk(s, d->xorg,
	           "libc:epoll_wait|exe:ospoll_wait|exe:WaitForSomething|exe:Dispatch|"
	           "exe:dix_main|libc:__libc_start_main",
	           "");
	d->xorg->stk[1] =
	    sy_stk(s, d->xorg,
	           "exe:DeliverDeviceEvents|exe:ProcessDeviceEvent|exe:"
	           "ProcessInputEvents|exe:Dispatch|exe:dix_main|libc:__libc_start_main",
	           "");
	d->xorg->stk[2] = sy_stk(s, d->xorg,
	                         "exe:fbComposite|exe:damageComposite|exe:ProcRenderComposite|exe:"
	                         "Dispatch|exe:dix_main|libc:__libc_start_main",
	                         "");
	d->input->stk[0] = sy_stk(
	    s, d->input,
	    "libc:epoll_wait|exe:ospoll_wait|exe:InputThreadDoWork|libc:start_thread|libc:__clone3",
	    "");
	d->input->stk[1] = sy_stk(s, d->input,
	                          "exe:EvdevReadInput|exe:xf86ReadInput|exe:InputThreadDoWork|libc:"
	                          "start_thread|libc:__clone3",
	                          "");

	if (!daemon1(s, "dbus-daemon", "/usr/bin/dbus-daemon", sy_dbus_step, &cpu, &d->dbus))
		return ARGUS_SYNTH_ENOMEM;
	d->dbus->stk[0] = sy_stk(s, d->dbus,
	                         "libc:epoll_wait|dbus:_dbus_loop_iterate|dbus:_dbus_loop_run|exe:"
	                         "main|libc:__libc_start_main",
	                         "");
	d->dbus->stk[1] =
	    sy_stk(s, d->dbus,
	           "exe:bus_dispatch_matches|exe:bus_dispatch|exe:bus_dispatch_message_"
	           "filter|dbus:dbus_connection_dispatch|dbus:_dbus_loop_iterate|dbus:_"
	           "dbus_loop_run|exe:main|libc:__libc_start_main",
	           "");

	if (!daemon1(s, "fontd", "/usr/libexec/fontd", sy_server_step, &cpu, &d->fontd))
		return ARGUS_SYNTH_ENOMEM;
	d->fontd->stk[0] =
	    sy_stk(s, d->fontd,
	           "libc:epoll_wait|exe:fontd_server_loop|exe:main|libc:__libc_start_main", "");
	d->fontd->stk[1] = sy_stk(s, d->fontd,
	                          "fc:FcFontSetMatchInternal|fc:FcFontMatch|exe:fontd_handle_match|"
	                          "exe:fontd_server_loop|exe:main|libc:__libc_start_main",
	                          "");

	static const char *const chain_comm[3] = {"tracker-miner-f", "gvfsd-metadata", "udisksd"};
	static const char *const chain_exe[3] = {"/usr/libexec/tracker-miner-fs-3",
	                                         "/usr/libexec/gvfsd-metadata",
	                                         "/usr/libexec/udisks2/udisksd"};
	static const char *const chain_work[3] = {
	    "exe:tracker_miner_fs_handle_query|gio:g_dbus_connection_call_sync_internal" SRV_TAIL,
	    "exe:meta_tree_lookup_by_path|exe:handle_get_metadata" SRV_TAIL,
	    "exe:udisks_state_check_mounted_fs|exe:udisks_state_check" SRV_TAIL};
	static const char *const chain_wait[3] = {
	    "libc:recvmsg|exe:tracker_miner_fs_query_metadata_sync|exe:tracker_miner_fs_handle_"
	    "query" SRV_TAIL,
	    "libc:recvmsg|exe:meta_tree_refresh_from_udisks_sync|exe:handle_get_metadata" SRV_TAIL,
	    "libc:fsync|exe:udisks_state_flush_to_disk|exe:udisks_state_check_mounted_fs|exe:"
	    "udisks_state_check" SRV_TAIL};
	for (int i = 0; i < 3; i++) {
		if (!daemon1(s, chain_comm[i], chain_exe[i], sy_server_step, &cpu, &d->chain[i]))
			return ARGUS_SYNTH_ENOMEM;
		d->chain[i]->stk[0] =
		    sy_stk(s, d->chain[i], "libc:__poll|glib:g_main_context_poll" SRV_TAIL, "");
		d->chain[i]->stk[1] = sy_stk(s, d->chain[i], chain_work[i], "");
		d->chain[i]->stk[2] = sy_stk(s, d->chain[i], chain_wait[i], "");
	}

	if (!daemon1(s, "pulseaudio", "/usr/bin/pulseaudio", sy_server_step, &cpu, &d->pa))
		return ARGUS_SYNTH_ENOMEM;
	d->pa->stk[0] =
	    sy_stk(s, d->pa,
	           "libc:__poll|pulse:pa_mainloop_poll|pulse:pa_mainloop_iterate|pulse:pa_"
	           "mainloop_run|exe:main|libc:__libc_start_main",
	           "");
	d->pa->stk[1] = sy_stk(
	    s, d->pa,
	    "exe:sink_process_msg|pulse:pa_asyncmsgq_dispatch|pulse:pa_mainloop_dispatch|pulse:"
	    "pa_mainloop_iterate|pulse:pa_mainloop_run|exe:main|libc:__libc_start_main",
	    "");
	d->pa->stk[2] = sy_stk(
	    s, d->pa,
	    "libc:clock_nanosleep|pulse:pa_msleep|exe:alsa_sink_reopen_backoff|exe:sink_process_"
	    "msg|pulse:pa_asyncmsgq_dispatch|pulse:pa_mainloop_run|exe:main|libc:__libc_start_main",
	    "");

	if (!daemon1(s, "gsd-color", "/usr/libexec/gsd-color", sy_server_step, &cpu, &d->svc))
		return ARGUS_SYNTH_ENOMEM;
	d->svc->stk[0] = sy_stk(s, d->svc, "libc:__poll|glib:g_main_context_poll" SRV_TAIL, "");
	d->svc->stk[1] =
	    sy_stk(s, d->svc,
	           "exe:gsd_color_state_get_profile|gio:g_dbus_connection_dispatch|glib:"
	           "g_main_context_dispatch" SRV_TAIL,
	           "");

	if (!daemon1(s, "gsd-power", "/usr/libexec/gsd-power", sy_bg_step, &cpu, &d->power))
		return ARGUS_SYNTH_ENOMEM;
	d->power->stk[0] = sy_stk(s, d->power, "libc:__poll|glib:g_main_context_poll" SRV_TAIL, "");
	d->power->stk[1] =
	    sy_stk(s, d->power,
	           "exe:engine_recalculate_state|exe:engine_device_changed_cb|glib:g_"
	           "main_context_dispatch" SRV_TAIL,
	           "");
	static const char *const watch_comm[2] = {"gvfsd-trash", "tracker-miner-r"};
	for (int i = 0; i < 2; i++) {
		snprintf(name, sizeof(name), "/usr/libexec/%s", watch_comm[i]);
		if (!daemon1(s, watch_comm[i], name, sy_bg_step, &cpu, &d->watch[i]))
			return ARGUS_SYNTH_ENOMEM;
		d->watch[i]->stk[0] =
		    sy_stk(s, d->watch[i], "libc:__poll|glib:g_main_context_poll" SRV_TAIL, "");
		d->watch[i]->stk[1] =
		    sy_stk(s, d->watch[i],
		           "exe:file_changed_cb|gio:g_file_monitor_emit_event|glib:"
		           "g_main_context_dispatch" SRV_TAIL,
		           "");
	}
	if (!daemon1(s, "gnome-shell", "/usr/bin/gnome-shell", sy_shell_step, &cpu, &d->shell))
		return ARGUS_SYNTH_ENOMEM;
	d->shell->stk[0] = sy_stk(s, d->shell, "libc:__poll|glib:g_main_context_poll" SRV_TAIL, "");
	d->shell->stk[1] =
	    sy_stk(s, d->shell,
	           "exe:shell_global_sync_properties|gio:g_dbus_connection_emit_signal|"
	           "glib:g_main_context_dispatch" SRV_TAIL,
	           "");
	if (!daemon1(s, "gsd-housekeepin", "/usr/libexec/gsd-housekeeping", sy_bg_step, &cpu,
	             &d->house))
		return ARGUS_SYNTH_ENOMEM;
	d->house->stk[0] =
	    sy_stk(s, d->house,
	           "libc:__poll|glib:g_main_context_poll|exe:housekeeping_idle_wait" SRV_TAIL, "");
	d->house->stk[1] = sy_stk(
	    s, d->house,
	    "exe:purge_old_thumbnails|exe:do_cleanup|glib:g_main_context_dispatch" SRV_TAIL, "");
	if (!daemon1(s, "tracker-extract", "/usr/libexec/tracker-extract-3", sy_bg_step, &cpu,
	             &d->extract))
		return ARGUS_SYNTH_ENOMEM;
	d->extract->stk[0] =
	    sy_stk(s, d->extract, "libc:__poll|glib:g_main_context_poll" SRV_TAIL, "");
	d->extract->stk[1] = sy_stk(s, d->extract,
	                            "exe:tracker_extract_pdf_text|exe:tracker_extract_file|glib:g_"
	                            "task_thread_pool_thread" THREAD_TAIL,
	                            "");

	d->circ_app = 2 % d->napps;
	for (uint32_t i = 0; i < d->napps; i++) {
		struct app *a = &d->app[i];
		unsigned n = i % 8;
		const char *base = app_names[n];
		char comm[32], exe[64];
		if (i < 8) {
			snprintf(comm, sizeof(comm), "%s", base);
			snprintf(a->prefix, sizeof(a->prefix), "%s", app_prefix[n]);
		} else {
			snprintf(comm, sizeof(comm), "%.12s-%u", base, i / 8);
			snprintf(a->prefix, sizeof(a->prefix), "%s%u", app_prefix[n], i / 8);
		}
		snprintf(exe, sizeof(exe), "/usr/bin/%s", comm);
		struct sproc *p = sy_world_proc(s, comm, exe, 1, false);
		if (!p)
			return ARGUS_SYNTH_ENOMEM;
		a->pid = p->pid;
		a->ui = mk(s, p, comm, sy_ui_step, &cpu);
		a->gdbus = mk(s, p, "gdbus", sy_gdbus_step, &cpu);
		a->w[0] = mk(s, p, "pool-0", sy_worker_step, &cpu);
		a->w[1] = mk(s, p, "pool-1", sy_worker_step, &cpu);
		if (!a->ui || !a->gdbus || !a->w[0] || !a->w[1])
			return ARGUS_SYNTH_ENOMEM;
		a->ui->app = a->gdbus->app = a->w[0]->app = a->w[1]->app = (uint8_t)i;
		a->ctx = obj_uaddr(a->pid, 1);
		a->pool = obj_uaddr(a->pid, 2);
		a->pool_cond = obj_uaddr(a->pid, 3);
		a->pool_mutex = obj_uaddr(a->pid, 4);
		a->result_cond = obj_uaddr(a->pid, 5);
		a->flag_addr = obj_uaddr(a->pid, 6);
		struct sthread *u = a->ui;
		const char *pf = a->prefix;
		a->stk_poll = sy_stk(s, u, "libc:__poll|glib:g_main_context_poll" MAIN_TAIL, pf);
		a->stk_handler =
		    sy_stk(s, u,
		           "exe:@_view_insert_text|gtk:gtk_text_buffer_insert|exe:@_view_"
		           "key_press_event|gtk:gtk_widget_event" DISPATCH_TAIL,
		           pf);
		a->stk_long =
		    sy_stk(s, u,
		           "exe:@_search_match_line|exe:@_search_scan_buffer|exe:@_document_"
		           "search_all|exe:@_on_find_activate|gobject:g_closure_invoke|"
		           "gobject:g_signal_emit_valist|gtk:gtk_widget_event" DISPATCH_TAIL,
		           pf);
		a->stk_font = sy_stk(s, u,
		                     "libc:recvmsg|fc:FcFontMatch|pango:pango_fc_font_map_load_"
		                     "fontset|pango:pango_layout_check_lines|gtk:gtk_label_get_"
		                     "preferred_size|gtk:gtk_widget_event" DISPATCH_TAIL,
		                     pf);
		a->stk_chain =
		    sy_stk(s, u,
		           "libc:recvmsg|gio:g_dbus_connection_send_message_with_reply_"
		           "sync|exe:@_metadata_query_sync|exe:@_file_info_refresh|gtk:gtk_"
		           "widget_event" DISPATCH_TAIL,
		           pf);
		a->stk_circ =
		    sy_stk(s, u,
		           "libc:__poll|exe:IPC::SyncChannel::Send|exe:@_render_host_sync_"
		           "call|exe:@_on_key_event|gtk:gtk_widget_event" DISPATCH_TAIL,
		           pf);
		a->stk_cond =
		    sy_stk(s, u,
		           "libc:__futex_abstimed_wait_common|libc:pthread_cond_timedwait|"
		           "glib:g_cond_wait_until|exe:@_thumbnail_wait_result|exe:@_icon_"
		           "view_draw|gtk:gtk_widget_event" DISPATCH_TAIL,
		           pf);
		a->stk_yield =
		    sy_stk(s, u,
		           "exe:@_audio_wait_ready|exe:@_on_play_clicked|gobject:g_signal_"
		           "emit_valist|gtk:gtk_widget_event" DISPATCH_TAIL,
		           pf);
		a->stk_idle_cb = sy_stk(s, u,
		                        "exe:@_update_thumbnails_idle|glib:g_idle_dispatch|glib:g_"
		                        "main_context_dispatch" MAIN_TAIL,
		                        pf);
		a->stk_blink = sy_stk(
		    s, u,
		    "gtk:blink_cb|glib:g_timeout_dispatch|glib:g_main_context_dispatch" MAIN_TAIL,
		    pf);
		a->stk_w_idle = sy_stk(
		    s, a->w[0],
		    "libc:__futex_abstimed_wait_common|libc:pthread_cond_wait|glib:g_cond_wait|"
		    "glib:g_async_queue_pop_intern_unlocked|glib:g_thread_pool_wait_for_new_"
		    "task|glib:g_thread_pool_thread_proxy" THREAD_TAIL,
		    pf);
		a->stk_w_mutex = sy_stk(
		    s, a->w[0],
		    "libc:__lll_lock_wait|libc:pthread_mutex_lock|glib:g_mutex_lock|glib:g_async_"
		    "queue_pop_intern_unlocked|glib:g_thread_pool_thread_proxy" THREAD_TAIL,
		    pf);
		a->stk_job =
		    sy_stk(s, a->w[0],
		           "exe:@_thumbnail_job_run|exe:@_thumbnail_scale|glib:g_thread_pool_"
		           "thread_proxy" THREAD_TAIL,
		           pf);
		a->stk_gd_poll = sy_stk(
		    s, a->gdbus,
		    "libc:__poll|glib:g_main_context_poll|glib:g_main_context_iterate|glib:g_"
		    "main_loop_run|gio:gdbus_shared_thread_func" THREAD_TAIL,
		    pf);
		a->stk_gd_work =
		    sy_stk(s, a->gdbus,
		           "gio:_g_dbus_worker_do_read_cb|gio:g_dbus_worker_emit_message|"
		           "glib:g_main_context_dispatch|glib:g_main_loop_run|gio:gdbus_"
		           "shared_thread_func" THREAD_TAIL,
		           pf);
		if (i == d->circ_app) {
			if (!daemon1(s, "renderer", exe, sy_render_step, &cpu, &d->render))
				return ARGUS_SYNTH_ENOMEM;
			struct sthread *r = d->render;
			r->stk[0] = sy_stk(s, r,
			                   "libc:__poll|exe:base::MessagePumpLibevent::Run|exe:"
			                   "content::RendererMain|exe:main|libc:__libc_start_main",
			                   "");
			r->stk[1] = sy_stk(
			    s, r,
			    "exe:blink::Document::UpdateStyleAndLayout|exe:content::"
			    "RenderFrameImpl::OnMessageReceived|exe:base::MessagePumpLibevent::"
			    "Run|exe:content::RendererMain|exe:main|libc:__libc_start_main",
			    "");
			r->stk[2] = sy_stk(s, r,
			                   "libc:recvmsg|exe:IPC::SyncChannel::Send|exe:content::"
			                   "RenderFrameImpl::GetCookiesSync|exe:blink::Document::"
			                   "cookie|exe:base::MessagePumpLibevent::Run|exe:content::"
			                   "RendererMain|exe:main|libc:__libc_start_main",
			                   "");
		}
	}
	d->irq_input_str = sy_world_string(s, "xhci_hcd");
	d->irq_disk_str = sy_world_string(s, "nvme0q1");
	d->irq_net_str = sy_world_string(s, "iwlwifi");
	d->member_str = sy_world_string(s, "org.gnome.SettingsDaemon.Color.GetProfile");
	d->dest_str = sy_world_string(s, "org.gnome.SettingsDaemon.Color");
	d->signal_str = sy_world_string(s, "org.freedesktop.DBus.Properties.PropertiesChanged");
	d->power_str = sy_world_string(s, "org.gnome.SettingsDaemon.Power");
	d->src_str = sy_world_string(s, "GdkFrameClockIdle");

	/* the plan: anomalies in kind order, spread over the record budget; a
	 * long trace repeats the round (one round per 12 s of desktop per kind) */
	for (uint32_t k = 1; k <= 7; k++)
		if (s->o.anomalies & ARGUS_SYNTH_ANOMALY(k))
			d->order[d->nk++] = k;
	uint64_t rounds = d->nk ? s->o.events / (d->nk * 12ULL * s->o.rate) : 0;
	d->total = d->nk * (uint32_t)(rounds < 1 ? 1 : rounds > 64 ? 64 : rounds);
	d->focus = 0;
	return 0;
}

/* After world_publish: threads start, periodic sources begin. */
void sy_desktop_start(struct sim *s)
{
	for (uint32_t i = 0; i < s->nth; i++)
		sy_thread_start(s, &s->th[i]);
	sy_heap_push(s, s->now + 5000000, H_USER, 0, 0);
	sy_heap_push(s, s->now + 10000000, H_PLAN, 0, 0);
	sy_heap_push(s, s->now + 300000, H_BG, 0, 0);
	for (unsigned c = 0; c < s->ncpu; c++)
		sy_heap_push(s, s->now + 1000000 + c * 977, H_TICK, (uint16_t)c, 0);
}

void sy_desktop_free(struct sim *s)
{
	free(s->d);
	s->d = NULL;
}
