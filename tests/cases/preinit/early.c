static int value;

__attribute__((noinline)) int lib_early_work(int x)
{
	return x + 40;
}

__attribute__((constructor)) static void lib_init(void)
{
	value = lib_early_work(2);
}

int lib_value(void)
{
	return value;
}
