/* fntrace archive -o: the hint it prints is shell-quoted */
__attribute__((noinline)) static int sq(int x)
{
	return x * x;
}

int main(void)
{
	return sq(3) == 9 ? 0 : 1;
}
