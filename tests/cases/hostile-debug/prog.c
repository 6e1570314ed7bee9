/* a program whose debug information is made hostile: three functions, one
 * called twice, so that names and lines can be told apart */
__attribute__((noinline)) static int square(int x)
{
	__asm__ volatile("");
	return x * x;
}

__attribute__((noinline)) static int sum_squares(int a, int b)
{
	return square(a) + square(b);
}

int main(void)
{
	return sum_squares(3, 4) == 25 ? 0 : 1;
}
