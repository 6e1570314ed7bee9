// Boost.Context fibers (libboost_context's jump_fcontext: a hand-written
// stack switch in assembly, which calls nothing the runtime could wrap)
// under traced frames: a generator resumed from nested calls, and two
// fibers that hand control to each other.
#include <boost/context/fiber.hpp>
#include <cstdio>
#include <utility>

namespace ctx = boost::context;

static int produced;

__attribute__((noinline)) int square(int x) { return x * x; }

__attribute__((noinline)) ctx::fiber yield_value(ctx::fiber &&caller, int v, int *out)
{
	*out = square(v);
	produced++;
	return std::move(caller).resume();
}

__attribute__((noinline)) ctx::fiber generate(ctx::fiber &&caller, int *out)
{
	for (int i = 1; i <= 4; i++)
		caller = yield_value(std::move(caller), i, out);
	return std::move(caller);
}

__attribute__((noinline)) int consume(int v) { return v + 1; }

__attribute__((noinline)) int next(ctx::fiber &gen) { gen = std::move(gen).resume(); return gen ? 1 : 0; }

__attribute__((noinline)) int run_generator(void)
{
	int out = 0, sum = 0;
	ctx::fiber gen{[&out](ctx::fiber &&caller) { return generate(std::move(caller), &out); }};
	while (next(gen) && produced <= 4 && out)
		sum += consume(out), out = 0;
	return sum;
}

__attribute__((noinline)) int leaf(int x) { return x * 3; }

__attribute__((noinline)) ctx::fiber ping_step(ctx::fiber &&other, int i, int *acc)
{
	*acc += leaf(i);
	return std::move(other).resume();
}

__attribute__((noinline)) int run_pingpong(void)
{
	int acc = 0;
	ctx::fiber pong{[&acc](ctx::fiber &&ping) {
		for (int i = 0; i < 3; i++)
			ping = ping_step(std::move(ping), 100 + i, &acc);
		return std::move(ping);
	}};
	for (int i = 0; i < 3; i++)
		pong = ping_step(std::move(pong), i, &acc);
	pong = std::move(pong).resume();
	return acc;
}

int main()
{
	int s = run_generator();
	int a = run_pingpong();
	std::printf("generator %d, pingpong %d\n", s, a);
	return 0;
}
