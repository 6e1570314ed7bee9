/* replay -r: 300 calls of step(), each calling leaf() twice, in one outer
 * call; the window is cut out of the middle */
__attribute__((noinline)) int leaf(int x)
{
	for (int i = 0; i < 50; i++)
		__asm__ volatile("" : "+r"(x));
	return x + 1;
}
__attribute__((noinline)) int step(int x)
{
	return leaf(x) + leaf(x + 1);
}
__attribute__((noinline)) int outer(void)
{
	int s = 0;
	for (int i = 0; i < 300; i++)
		s += step(i);
	return s;
}
int main(void)
{
	return outer() > 0 ? 0 : 1;
}
