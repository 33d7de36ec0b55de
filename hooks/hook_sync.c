/*
 * hook_sync.c - condition variables, semaphores and mutex hand-offs, by
 * symbol interposition of the pthread / sem calls (the library is preloaded,
 * so the application's calls reach these first; each forwards to libc).
 *
 * The graph needs to tell a signal to a waiter (strong: the signaller meant
 * to wake it) from a mutex hand-off (weak: the unlocker merely left the
 * lock). The kernel only sees futex wakes; these records say which it was.
 */
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <semaphore.h>
#include <string.h>

#include "hooks_internal.h"

#define EXPORT __attribute__((visibility("default")))

/* The libc function behind an interposed name, looked up on first use
 * (calls may arrive before the constructor has run). */
#define REAL(name)                                                                                 \
	static __typeof__(name) *real_##name;                                                      \
	if (!real_##name)                                                                          \
	real_##name = (__typeof__(name) *)dlsym(RTLD_NEXT, #name)

static void emit_sync(unsigned type, const void *obj, const void *mutex, long ret)
{
	struct argus_event ev;
	memset(&ev, 0, sizeof(ev));
	ev.type = (uint16_t)type;
	ev.sync.obj = (uintptr_t)obj;
	ev.sync.mutex = (uintptr_t)mutex;
	ev.sync.ret = ret;
	hooks_emit(&ev);
}

EXPORT int pthread_cond_signal(pthread_cond_t *c)
{
	REAL(pthread_cond_signal);
	if (hooks_active())
		emit_sync(ARGUS_EV_COND_SIGNAL, c, NULL, 0);
	return real_pthread_cond_signal(c);
}

EXPORT int pthread_cond_broadcast(pthread_cond_t *c)
{
	REAL(pthread_cond_broadcast);
	if (hooks_active())
		emit_sync(ARGUS_EV_COND_BROADCAST, c, NULL, 0);
	return real_pthread_cond_broadcast(c);
}

EXPORT int pthread_cond_wait(pthread_cond_t *c, pthread_mutex_t *m)
{
	REAL(pthread_cond_wait);
	if (!hooks_active())
		return real_pthread_cond_wait(c, m);
	emit_sync(ARGUS_EV_COND_WAIT, c, m, 0);
	int rc = real_pthread_cond_wait(c, m);
	emit_sync(ARGUS_EV_COND_WAKE, c, m, rc);
	return rc;
}

EXPORT int pthread_cond_timedwait(pthread_cond_t *c, pthread_mutex_t *m, const struct timespec *t)
{
	REAL(pthread_cond_timedwait);
	if (!hooks_active())
		return real_pthread_cond_timedwait(c, m, t);
	emit_sync(ARGUS_EV_COND_WAIT, c, m, 0);
	int rc = real_pthread_cond_timedwait(c, m, t);
	emit_sync(ARGUS_EV_COND_WAKE, c, m, rc);
	return rc;
}

EXPORT int pthread_cond_clockwait(pthread_cond_t *c, pthread_mutex_t *m, clockid_t clk,
                                  const struct timespec *t)
{
	REAL(pthread_cond_clockwait);
	if (!hooks_active())
		return real_pthread_cond_clockwait(c, m, clk, t);
	emit_sync(ARGUS_EV_COND_WAIT, c, m, 0);
	int rc = real_pthread_cond_clockwait(c, m, clk, t);
	emit_sync(ARGUS_EV_COND_WAKE, c, m, rc);
	return rc;
}

EXPORT int sem_post(sem_t *s)
{
	REAL(sem_post);
	if (hooks_active())
		emit_sync(ARGUS_EV_SEM_POST, s, NULL, 0);
	return real_sem_post(s);
}

/* sem_wait is reported when the wait returns (ret 0 or -errno). */
EXPORT int sem_wait(sem_t *s)
{
	REAL(sem_wait);
	int rc = real_sem_wait(s);
	if (hooks_active())
		emit_sync(ARGUS_EV_SEM_WAIT, s, NULL, rc ? -errno : 0);
	return rc;
}

EXPORT int sem_timedwait(sem_t *s, const struct timespec *t)
{
	REAL(sem_timedwait);
	int rc = real_sem_timedwait(s, t);
	if (hooks_active())
		emit_sync(ARGUS_EV_SEM_WAIT, s, NULL, rc ? -errno : 0);
	return rc;
}

/*
 * glibc's lock word (__data.__lock): 0 free, 1 held, 2 held with waiters;
 * robust, PI and PP mutexes keep the owner tid with FUTEX_WAITERS (bit 31). An unlock with
 * waiters wakes one: a hand-off, reported before the wake.
 */
EXPORT int pthread_mutex_unlock(pthread_mutex_t *m)
{
	REAL(pthread_mutex_unlock);
	if (hooks_active()) {
		int lock = __atomic_load_n(&m->__data.__lock, __ATOMIC_RELAXED);
		/* robust (16), PI (32), PP (64) mutexes keep the owner's tid */
		bool tid_word = m->__data.__kind & (16 | 32 | 64);
		if (tid_word ? (lock & (int)0x80000000) != 0 : lock > 1)
			emit_sync(ARGUS_EV_MUTEX_HANDOFF, m, NULL, 0);
	}
	return real_pthread_mutex_unlock(m);
}

/* GLib's GMutex / GCond (futex based on Linux, not pthread) are hooked
 * inline in hook_glib.c with the same records. */
void hooks_sync_emit(unsigned type, const void *obj, const void *mutex, long ret)
{
	emit_sync(type, obj, mutex, ret);
}
