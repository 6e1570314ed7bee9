/* record --auto-args: names and types from DWARF, -pg -mfentry */
#include <stdbool.h>
#include <stdio.h>

enum color { RED, GREEN = 5, BLUE };
struct pt { long x, y; };
struct big { long a[4]; };

static volatile int v_times = 3, v_seven = 7;
static volatile double v_half = 0.5;
static volatile enum color v_blue = BLUE;
static volatile char v_x = 'x';
static const char *volatile v_world = "world";

__attribute__((noinline)) int greet(const char *name, int times) { printf("hi %s\n", name); return times * 2; }
__attribute__((noinline)) enum color paint(enum color c, bool b, char ch) { return b && ch ? c : RED; }
__attribute__((noinline)) double area(struct pt p, double s) { return (double)(p.x * p.y) * s; }
__attribute__((noinline)) struct big mk(int v) { struct big b = { { v, v, v, v } }; return b; }
__attribute__((noinline)) long after_big(struct big b, long k) { return b.a[0] + k; }
__attribute__((noinline)) unsigned short narrow(short s, unsigned char u, float f) { return (unsigned short)(s + u + (int)f); }

int main(void)
{
	greet(v_world, v_times);
	printf("%d\n", (int)paint(v_blue, v_times > 0, v_x));
	struct pt p = { v_times - 1, v_times };
	printf("%g\n", area(p, v_half));
	printf("%ld\n", after_big(mk(v_seven), 9));
	printf("%u\n", narrow(-v_seven, 200, 1.5f));
	return 0;
}
