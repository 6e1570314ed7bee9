// Boost.Fiber's work-stealing scheduler on two threads, fibers ending on
// one thread and resumed by the other (tests/cases/boost-fiber/check.py).
//
// The worker thread makes 40 fibers; each yields inside nested traced calls
// (task > outer > inner > yield) and runs on the worker to its end.  main
// holds the fibers' handles and does not run its scheduler meanwhile (it
// waits on a plain atomic), so nothing is stolen.  Then main joins them: it
// holds the last reference to each finished fiber, and Boost resumes that
// fiber on main to let it return from its entry and free its stack.  So
// every fiber's stack, with its entry calls still open, moves from the
// worker to main.  The worker left each one by Boost's jump_fcontext (not
// traced); the next fiber's first call made it park the one it left, but
// it left its last one unseen: it makes no traced call until its main
// fiber's sleep ends, long after.  main also has a fiber of its own
// suspended meanwhile, whose innermost traced call is the same fiber entry
// (waiter() is not traced).
#include <boost/fiber/all.hpp>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <thread>
#include <vector>

static std::atomic<long> total{0};
static std::atomic<int> done{0};

__attribute__((noinline)) long leaf(long x) { return x * 2 + 1; }

__attribute__((noinline)) long inner(int i, int round)
{
	long v = leaf(i + round);
	boost::this_fiber::yield();
	return v + leaf(round);
}

__attribute__((noinline)) long outer(int i)
{
	long s = 0;
	for (int r = 0; r < 5; r++)
		s += inner(i, r);
	return s;
}

__attribute__((noinline)) void task(int i)
{
	total += outer(i);
	done++;
}

__attribute__((noinline, no_instrument_function)) void waiter(boost::fibers::future<void> *f) { f->get(); }

static std::vector<boost::fibers::fiber> fibers;
static std::atomic<bool> made{false}, finished{false};

static void worker_thread()
{
	boost::fibers::use_scheduling_algorithm<boost::fibers::algo::work_stealing>(2);
	for (int i = 0; i < 40; i++)
		fibers.emplace_back(task, i);
	made = true;
	// the fibers run while this one sleeps; then nothing traced runs here
	// until main says it is finished
	while (!finished)
		boost::this_fiber::sleep_for(std::chrono::milliseconds(5));
}

int main()
{
	std::thread t(worker_thread);
	// (each thread's work_stealing waits for the other's)
	boost::fibers::use_scheduling_algorithm<boost::fibers::algo::work_stealing>(2);
	boost::fibers::promise<void> go;
	boost::fibers::future<void> fut = go.get_future();
	boost::fibers::fiber w(boost::fibers::launch::dispatch, waiter, &fut);
	while (!made || done < 40)
		std::this_thread::sleep_for(std::chrono::milliseconds(1));
	// (the worker's scheduler lets go of the fibers that ended)
	std::this_thread::sleep_for(std::chrono::milliseconds(30));
	for (auto &f : fibers)
		f.join();
	fibers.clear();
	go.set_value();
	w.join();
	finished = true;
	t.join();
	std::printf("total %ld\n", total.load());
	return 0;
}
