__attribute__((noinline)) int step(int i)
{
	return i + 1;
}
