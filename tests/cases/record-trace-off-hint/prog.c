/* an instrumented program that never calls fnt_enable() */
__attribute__((noinline)) int work(int i)
{
	__asm__ volatile("" : "+r"(i));
	return i + 1;
}

int main(void)
{
	return work(1) == 2 ? 0 : 1;
}
