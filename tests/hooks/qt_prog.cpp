/*
 * qt_prog.cpp - a Qt5 Widgets window for the hooks tests: once shown, it
 * has xdotool type a key into it through the X server (XTEST); on the key
 * press a worker thread posts a custom event to the window with
 * QCoreApplication::postEvent; the window prints the threads and the
 * event's address when it handles it, and quits. Gives up after 10 s.
 * The key press handler and a QTimer's timeout slot each work 20 ms: a
 * Qt event and a Qt signal long enough to be landmarks.
 */
#include <QApplication>
#include <QCoreApplication>
#include <QEvent>
#include <QKeyEvent>
#include <QTimer>
#include <QWidget>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <thread>
#include <unistd.h>

static void work_20ms()
{
	auto t0 = std::chrono::steady_clock::now();
	volatile unsigned h = 1;
	while (std::chrono::steady_clock::now() - t0 < std::chrono::milliseconds(20))
		h = h * 31 + 7;
}

static const QEvent::Type kPostedType = static_cast<QEvent::Type>(QEvent::User + 1);

/* A struct: the handlers need no access specifiers (which clang-format
 * would indent). */
struct Window : public QWidget {
	void keyPressEvent(QKeyEvent *e) override
	{
		std::printf("key_tid=%d key=%d\n", gettid(), e->key());
		std::fflush(stdout);
		work_20ms();
		if (worker.joinable())
			return;
		worker = std::thread([this] {
			QEvent *ev = new QEvent(kPostedType);
			std::printf("post_tid=%d\npost_event=%p\n", gettid(), (void *)ev);
			std::fflush(stdout);
			QCoreApplication::postEvent(this, ev);
		});
	}

	void customEvent(QEvent *e) override
	{
		if (e->type() != kPostedType)
			return;
		std::printf("run_tid=%d\nrun_event=%p\n", gettid(), (void *)e);
		std::fflush(stdout);
		QCoreApplication::quit();
	}

	~Window() override
	{
		if (worker.joinable())
			worker.join();
	}

	std::thread worker;
};

int main(int argc, char **argv)
{
	QApplication app(argc, argv);
	Window win;
	win.setFocusPolicy(Qt::StrongFocus);
	win.resize(200, 100);
	win.move(0, 0);
	win.show();
	QTimer slow;
	slow.setSingleShot(true);
	QObject::connect(&slow, &QTimer::timeout, [] {
		work_20ms();
		std::printf("slow_timer=1\n");
		std::fflush(stdout);
	});
	slow.start(100);
	/* No window manager runs under Xvfb: the keyboard follows the pointer,
	 * which goes over the window (placed at 0,0). */
	QTimer::singleShot(300, [] {
		if (std::system("xdotool mousemove 20 20 key a") != 0)
			std::fprintf(stderr, "qt_prog: xdotool failed\n");
	});
	int timed_out = 0;
	QTimer::singleShot(10000, [&timed_out] {
		std::fprintf(stderr, "qt_prog: no posted event handled\n");
		timed_out = 1;
		QCoreApplication::quit();
	});
	int rc = app.exec();
	return rc ? rc : timed_out ? 4 : 0;
}
