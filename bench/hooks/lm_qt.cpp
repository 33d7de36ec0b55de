/*
 * lm_qt.cpp - the Qt5 workload of `argus bench hooks --landmarks`: a real
 * QApplication (offscreen platform) that dispatches, as fast as it can,
 * what the Qt hooks see (docs/hooks.md "Qt"), each kind timed on its own:
 *
 *   qt-event   QCoreApplication::sendEvent() of a user event to an object
 *              whose event() takes it (a delivery through notify)
 *   qt-posted  postEvent() of user events, 1000 at a time, delivered by
 *              sendPostedEvents() (a post, its delivery, both recorded)
 *   qt-signal  a signal with one connected slot (objectNameChanged: the
 *              name set alternates between two shared strings)
 *   qt-paint   QWidget::repaint() of a widget with a paintEvent()
 *
 * Prints one line per kind: "NAME COUNT NS" (NS: the CPU time of the
 * thread that dispatches, CLOCK_THREAD_CPUTIME_ID, for COUNT events after a
 * warm-up of a tenth: what the hooks add to the UI thread, not the other
 * jobs of the machine).
 */
#include <QApplication>
#include <QCoreApplication>
#include <QEvent>
#include <QPainter>
#include <QWidget>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <ctime>

static uint64_t now_ns()
{
	struct timespec ts;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static volatile unsigned handled;
static const QEvent::Type kUser = static_cast<QEvent::Type>(QEvent::User + 7);

struct Target : public QObject {
	bool event(QEvent *e) override
	{
		if (e->type() != kUser)
			return QObject::event(e);
		handled++;
		return true;
	}
};

struct Canvas : public QWidget {
	void paintEvent(QPaintEvent *) override
	{
		QPainter p(this);
		p.fillRect(1, 1, 4, 4, Qt::black);
		handled++;
	}
};

static void report(const char *name, unsigned n, uint64_t ns)
{
	std::printf("%s %u %llu\n", name, n, (unsigned long long)ns);
	std::fflush(stdout);
}

/* n steps of per events each */
template <typename F> static void timed(const char *name, unsigned n, unsigned per, F step)
{
	for (unsigned i = 0; i < n / 10; i++)
		step(i);
	uint64_t t0 = now_ns();
	for (unsigned i = 0; i < n; i++)
		step(i);
	report(name, n * per, now_ns() - t0);
}

int main(int argc, char **argv)
{
	unsigned scale = argc > 1 ? (unsigned)std::strtoul(argv[1], nullptr, 10) : 1;
	if (!scale)
		scale = 1;
	QApplication app(argc, argv);
	Target t;
	Canvas c;
	c.resize(32, 32);
	c.show();
	QCoreApplication::processEvents();

	timed("qt-event", 400000 * scale, 1, [&](unsigned) {
		QEvent e(kUser);
		QCoreApplication::sendEvent(&t, &e);
	});
	timed("qt-posted", 200 * scale, 1000, [&](unsigned) {
		for (int k = 0; k < 1000; k++)
			QCoreApplication::postEvent(&t, new QEvent(kUser));
		QCoreApplication::sendPostedEvents(&t, kUser);
	});
	const QString a = QStringLiteral("a"), b = QStringLiteral("b");
	QObject::connect(&t, &QObject::objectNameChanged, [](const QString &) { handled++; });
	timed("qt-signal", 400000 * scale, 1, [&](unsigned i) { t.setObjectName(i & 1 ? a : b); });
	timed("qt-paint", 20000 * scale, 1, [&](unsigned) { c.repaint(); });
	return 0;
}
